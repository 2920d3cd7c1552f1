/** What the share section says: the repository's folder, who may log in, whether they may write. */
export interface ShareSection {
  name: string;
  path: string;
  user: string;
  /** The Unix user files are written as (the one ogserve runs as: it hashes, moves and serves them). */
  forceUser: string;
  writable: boolean;
  configFile: string;
}

/**
 * The share section ogserve writes for `repository.directory`, which smb.conf includes: the
 * agents' `ogimages` share as an OpenGnsys repository gives it (log in as the agents' Samba
 * user; files written as ogserve's user), read-only except while a create is under way, with
 * ogserve's own folders (.trash, .pull) hidden.
 */
export function sectionText(s: ShareSection): string {
  const lines = [
    `# Written by ogserve (repository.share); changes made here are replaced. smb.conf includes it:`,
    `#   include = ${s.configFile}`,
    `[${s.name}]`,
    `   comment = ogserve image repository`,
    `   path = ${s.path}`,
    `   browseable = no`,
    `   guest ok = no`,
    `   valid users = ${s.user}`,
    `   read only = ${s.writable ? 'no' : 'yes'}`,
    ...(s.writable ? [`   write list = ${s.user}`] : []),
    `   force user = ${s.forceUser}`,
    `   create mask = 0644`,
    `   directory mask = 0755`,
    `   locking = no`,
    `   veto files = /.trash/.pull/`,
    '',
  ];
  return lines.join('\n');
}
