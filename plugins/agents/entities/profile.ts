import { EntitySchema } from '@mikro-orm/core';

/**
 * Software and hardware profiles, as the reference keeps them: one id per distinct set of
 * packages (a partition's software id, an image's software_id) or of components (a
 * client's hardware_id), shared by every partition or client that reports the same set.
 * A row is identified by the SHA-256 of its sorted set; rows are never changed, so two
 * agents reporting the same new set at once end with one row.
 */
export interface Profile {
  id: number;
  fingerprint: string;
}

export interface SoftwareProfile extends Profile {
  /** The operating system line of the report that created it. */
  os: string;
}

export const SoftwareProfileEntity = new EntitySchema<SoftwareProfile>({
  name: 'SoftwareProfile',
  tableName: 'software_profiles',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    fingerprint: { type: 'string', length: 64, unique: true },
    os: { type: 'text' },
  },
});

export const HardwareProfileEntity = new EntitySchema<Profile>({
  name: 'HardwareProfile',
  tableName: 'hardware_profiles',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    fingerprint: { type: 'string', length: 64, unique: true },
  },
});
