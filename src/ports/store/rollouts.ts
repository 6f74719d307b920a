// Firmware files and rollouts (docs/firmware.md). A file's bytes live in the BlobStore; its row
// names the blob. A rollout's per-device rows are its whole truth: counts are computed from
// them, and every change of a device's state is one conditional update, so however many nodes
// race (a device's file request on one, its command's expiry on another, the worker's pass on a
// third) each transition happens once and nothing is counted twice.
import type { Page, Paged } from './page.js';

export interface FirmwareFileRow {
  bundleId: string;
  componentName: string;
  size: number;
  /** lowercase hex */
  sha256: string;
  /** where the bytes are in the BlobStore */
  blobKey: string;
  creationTime: string;
}

export type RolloutState = 'running' | 'paused' | 'completed' | 'aborted';
export const FINISHED_ROLLOUT: readonly RolloutState[] = ['completed', 'aborted'];
export type RolloutDeviceState = 'pending' | 'notified' | 'downloading' | 'installed' | 'failed';
export const ROLLOUT_DEVICE_STATES: readonly RolloutDeviceState[] = ['pending', 'notified', 'downloading', 'installed', 'failed'];
/** a device still on its way: not installed, not failed */
export const OPEN_ROLLOUT_DEVICE: readonly RolloutDeviceState[] = ['pending', 'notified', 'downloading'];

export interface RolloutWave {
  percent: number;
  afterMinutes?: number;
}
export interface RolloutTarget {
  channel?: string;
  tag?: string;
  deviceIds?: number[];
}

export interface RolloutRow {
  id: string;
  projectId: number;
  bundleId: string;
  name: string;
  state: RolloutState;
  target: RolloutTarget;
  waves: RolloutWave[];
  /** index into waves of the wave whose cohort is being notified */
  currentWave: number;
  /** when the current wave began (wave 0: at creation) */
  waveTime: string;
  failureThreshold: number;
  ratePerMinute: number | null;
  /** seconds: the notification command's TTL, and how long a notified device has to install */
  ttl: number;
  /** results already judged when the rollout was last resumed: the threshold looks at those after */
  baseInstalled: number;
  baseFailed: number;
  creationTime: string;
  updateTime: string;
}

export type NewRollout = Omit<RolloutRow, 'baseInstalled' | 'baseFailed'>;

export interface RolloutCounts {
  targeted: number;
  pending: number;
  notified: number;
  downloading: number;
  installed: number;
  failed: number;
}

export interface RolloutDeviceRow {
  rolloutId: string;
  deviceId: number;
  /** the wave whose cohort the device falls in */
  wave: number;
  state: RolloutDeviceState;
  /** the outbox command that notifies it, once enqueued */
  commandId: string | null;
  /** when its command was enqueued (the pacing window counts these) */
  notifyTime: string | null;
  /** not installed by then: failed (the command's expiration) */
  deadline: string | null;
  updateTime: string;
  error: string | null;
}

export type RolloutPatch = Partial<Pick<RolloutRow, 'state' | 'currentWave' | 'waveTime' | 'baseInstalled' | 'baseFailed'>>;

export interface FirmwareFileRepo {
  /**
   * Records the file of a component (replacing any) and sets the component's `url` and
   * `checksum` in its bundle, in one transaction. Returns the file it replaced; undefined when
   * the bundle (or the component) is gone.
   */
  put(row: FirmwareFileRow, component: { url: string; checksum: string }): Promise<{ replaced?: FirmwareFileRow } | undefined>;
  get(bundleId: string, componentName: string): Promise<FirmwareFileRow | undefined>;
  list(bundleId: string): Promise<FirmwareFileRow[]>;
  /** removes the rows of a bundle's files; returns them (their blobs are the caller's to remove) */
  deleteForBundle(bundleId: string): Promise<FirmwareFileRow[]>;
}

export interface RolloutRepo {
  /** the rollout and one row per targeted device (`pending` unless given), in one transaction */
  create(r: NewRollout, devices: { deviceId: number; wave: number; state?: RolloutDeviceState }[]): Promise<void>;
  get(id: string): Promise<RolloutRow | undefined>;
  /** newest first */
  list(projectId: number, page: Page): Promise<Paged<RolloutRow>>;
  counts(ids: string[]): Promise<Map<string, RolloutCounts>>;
  /**
   * Applies `patch` when the rollout is in one of `from` (and, given, at wave `atWave`); the
   * row as updated, undefined when it was not. updateTime becomes `now`.
   */
  update(id: string, from: readonly RolloutState[], patch: RolloutPatch, now: string, atWave?: number): Promise<RolloutRow | undefined>;
  /** whether a running or paused rollout brings this bundle */
  activeForBundle(bundleId: string): Promise<boolean>;
  /** running rollouts, and those with a change not yet announced (the worker's pass) */
  due(limit: number): Promise<RolloutRow[]>;
  /**
   * The worker's lease on a rollout: taken when free, expired, or already `owner`'s. One
   * conditional update, so one worker at a time advances a rollout.
   */
  lease(id: string, owner: string, now: string, until: string): Promise<boolean>;
  release(id: string, owner: string): Promise<void>;
  /** a change to announce: `_rolloutUpdated_` is owed */
  touch(id: string, now: string): Promise<void>;
  /**
   * Takes the right to announce now: the rollout has a change not announced and the last
   * announcement is at least `gapMs` old. True once per announcement however many ask.
   */
  claimAnnouncement(id: string, now: string, gapMs: number): Promise<boolean>;

  devices(id: string, states: readonly RolloutDeviceState[] | undefined, page: Page): Promise<Paged<RolloutDeviceRow>>;
  device(id: string, deviceId: number): Promise<RolloutDeviceRow | undefined>;
  /** pending devices of waves up to `maxWave` whose command is not enqueued yet, wave then device order */
  toNotify(id: string, maxWave: number, limit: number): Promise<RolloutDeviceRow[]>;
  /** devices whose command was enqueued at or after `since` (the pacing window) */
  notifiedSince(id: string, since: string): Promise<number>;
  /** records the device's command, once (false: already recorded) */
  recordCommand(id: string, deviceId: number, commandId: string, now: string, deadline: string): Promise<boolean>;
  /** moves a device from one of `from` to `to`; the row as updated, undefined when it was not in `from` */
  move(
    id: string,
    deviceId: number,
    from: readonly RolloutDeviceState[],
    to: RolloutDeviceState,
    now: string,
    error?: string | null,
  ): Promise<RolloutDeviceRow | undefined>;
  /** the device's rows in rollouts of `bundleId` in one of `from`, with their rollout's state */
  ofDevice(deviceId: number, bundleId: string, from: readonly RolloutDeviceState[]): Promise<(RolloutDeviceRow & { rolloutState: RolloutState })[]>;
  /** devices still open whose deadline passed, marked failed (at most `limit`); how many */
  failOverdue(id: string, now: string, limit: number, error: string): Promise<number>;
  /** open devices with a command (the commands an abort cancels) */
  openCommands(id: string): Promise<{ deviceId: number; commandId: string }[]>;
  deleteForDevice(deviceId: number): Promise<number>;
}
