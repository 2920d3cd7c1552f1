import { EntitySchema } from '@mikro-orm/core';

/** A session's state: its sender waits for PCs, sends, or ended (done, failed, cancelled). */
export const sessionStates = ['waiting', 'sending', 'done', 'failed', 'cancelled'] as const;
export type SessionState = (typeof sessionStates)[number];
export const liveStates: readonly SessionState[] = ['waiting', 'sending'];

/**
 * One multicast session: one udp-sender streaming one image to the PCs of one room. Bytes are
 * doubles (exact to 2^53, 8 PiB); times are milliseconds since 1970. `params` is the restore
 * asked (disk, partition, profile...), JSON, so that its dropped PCs can be sent it again.
 * `host` is the machine whose ogserve runs the sender.
 */
export interface Session {
  id: number;
  imageId: number;
  imageName: string;
  roomId: number;
  roomName: string;
  /** The restore's job (the jobs plugin's), when one was made. */
  jobId: number | null;
  state: SessionState;
  /** Why it failed or was cancelled, in words; '' otherwise. */
  reason: string;
  port: number;
  /** The server's address on the room's network the stream leaves from, and its interface. */
  address: string;
  device: string;
  minReceivers: number;
  /** Bytes of the image file, of the stream so far, and udp-sender's retransmitted blocks. */
  size: number;
  bytes: number;
  retransmits: number;
  /** Bytes per second: lately while it sends, over the whole stream once done. */
  rate: number;
  params: string;
  who: string;
  host: string;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

export const SessionEntity = new EntitySchema<Session>({
  name: 'MulticastSession',
  tableName: 'multicast_sessions',
  indexes: [{ name: 'multicast_sessions_job', properties: ['jobId'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    imageId: { type: 'integer', fieldName: 'image_id' },
    imageName: { type: 'string', length: 50, fieldName: 'image_name' },
    roomId: { type: 'integer', fieldName: 'room_id' },
    roomName: { type: 'string', length: 100, fieldName: 'room_name', default: '' },
    jobId: { type: 'integer', fieldName: 'job_id', nullable: true },
    state: { type: 'string', length: 16, index: 'multicast_sessions_state' },
    reason: { type: 'text' },
    port: { type: 'integer' },
    address: { type: 'string', length: 15 },
    device: { type: 'string', length: 32, default: '' },
    minReceivers: { type: 'integer', fieldName: 'min_receivers' },
    size: { type: 'double' },
    bytes: { type: 'double', default: 0 },
    retransmits: { type: 'integer', default: 0 },
    rate: { type: 'double', default: 0 },
    params: { type: 'text' },
    who: { type: 'string', length: 255, default: '' },
    host: { type: 'string', length: 255, default: '' },
    createdAt: { type: 'double', fieldName: 'created_at' },
    startedAt: { type: 'double', fieldName: 'started_at', nullable: true },
    finishedAt: { type: 'double', fieldName: 'finished_at', nullable: true },
  },
});
