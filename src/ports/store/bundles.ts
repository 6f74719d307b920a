// Software bundles of a device class: the components a device of that class should run.

export interface BundleComponent {
  componentName: string;
  componentVersionName: string;
  filename?: string;
  checksum?: string;
  url?: string;
  deviceConfigSchema?: unknown[];
}

export interface BundleRow {
  id: string;
  projectId: number;
  name: string | null;
  description: string | null;
  deviceClass: string;
  channel: string | null;
  components: BundleComponent[];
  creationTime: string;
}

export interface BundleRepo {
  create(b: BundleRow): Promise<void>;
  get(id: string): Promise<BundleRow | undefined>;
  list(f: { projectId: number; deviceClass?: string; channel?: string }): Promise<BundleRow[]>;
  delete(id: string): Promise<boolean>;
}
