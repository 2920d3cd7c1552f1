import { hardwareTypes } from './hardware';
import { writeProfiles, writeReports } from './import';

/**
 * What `ogserve import-opengnsys` takes from the agents: the writers of profiles and of the
 * last reports, and the hardware types they know (a component of another type is left out).
 */
export const agentsImport = { writeProfiles, writeReports, hardwareTypes };

declare module 'ogserve' {
  interface ImportParts {
    agents: typeof agentsImport;
  }
}
