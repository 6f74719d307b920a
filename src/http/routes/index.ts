// Every resource sub-app and where it is mounted. Several sub-apps may share a prefix (their
// paths do not overlap): one file per resource or concern.
import type { Hono } from 'hono';
import type { HttpEnv } from '../env.js';
import { authRoutes as auth } from './auth.js';
import { projectsRoutes as projects } from './projects.js';
import { usersRoutes as users } from './users.js';
import { homesRoutes as homes } from './homes.js';
import { devicesRoutes as devices } from './devices.js';
import { registrationRoutes as registration } from './registration.js';
import { bundlesRoutes as bundles } from './bundles.js';
import { device_kvRoutes as deviceKv } from './device-kv.js';
import { home_kvRoutes as homeKv } from './home-kv.js';
import { logsRoutes as logs } from './logs.js';
import { eventsRoutes as events } from './events.js';
import { device_realtimeRoutes as deviceRealtime } from './device-realtime.js';
import { realtimeRoutes as realtime } from './realtime.js';
import { modulesRoutes as modules } from './modules.js';
import { homeModulesRoutes as homeModules } from './home-modules.js';
import { homeTsdbRoutes as homeTsdb } from './home-tsdb.js';
import { logRequestsRoutes as logRequests } from './log-requests.js';
import { deviceCommandsRoutes as deviceCommands } from './device-commands.js';
import { deviceLoggerRoutes as deviceLogger } from './device-logger.js';
import { deviceDataRoutes as deviceData } from './device-data.js';
import { dataSourcesRoutes as dataSources } from './data-sources.js';
import { reportsRoutes as reports } from './reports.js';
import { consoleRoutes as console_ } from './console.js';
import { projectSettingsRoutes as projectSettings } from './project-settings.js';
import { deviceCertificatesRoutes as deviceCertificates } from './device-certificates.js';
import { firmwareFilesRoutes as firmwareFiles } from './firmware-files.js';
import { rolloutsRoutes as rollouts } from './rollouts.js';

export const ROUTES: [string, () => Hono<HttpEnv>][] = [
  ['/', auth],
  ['/projects', projects],
  ['/users', users],
  ['/homes', homes],
  ['/devices', devices],
  ['/deviceRegistration', registration],
  ['/bundles', bundles],
  ['/devices', deviceKv],
  ['/homes', homeKv],
  ['/', logs],
  ['/events', events],
  ['/devices', deviceRealtime],
  ['/', realtime],
  ['/projects', modules],
  ['/homes', homeModules],
  ['/homes', homeTsdb],
  ['/devices', logRequests],
  ['/devices', deviceCommands],
  ['/deviceLogger', deviceLogger],
  ['/devices', deviceData],
  ['/projects', dataSources],
  ['/scheduledReports', reports],
  ['/console', console_],
  ['/projects', projectSettings],
  ['/devices', deviceCertificates],
  ['/bundles', firmwareFiles],
  ['/projects', rollouts],
];
