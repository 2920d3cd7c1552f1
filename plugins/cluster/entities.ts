import { EntitySchema } from '@mikro-orm/core';

/**
 * One ogserve instance of the site: alive while its heartbeat is recent and its database
 * session (named `ogserve:<name>`) is open, so an instance killed outright is gone at once.
 */
export interface ClusterInstance {
  name: string;
  startedAt: Date;
  heartbeatAt: Date;
}

export const ClusterInstanceEntity = new EntitySchema<ClusterInstance>({
  name: 'ClusterInstance',
  tableName: 'cluster_instance',
  properties: {
    name: { type: 'string', length: 48, primary: true },
    startedAt: { type: 'datetime', fieldName: 'started_at' },
    heartbeatAt: { type: 'datetime', fieldName: 'heartbeat_at' },
  },
});

/** A message too large for NOTIFY's 8,000 bytes: the notification names its row (a random id: no sequence to run out). */
export interface ClusterMessage {
  id: string;
  sender: string;
  body: string;
  createdAt: Date;
}

export const ClusterMessageEntity = new EntitySchema<ClusterMessage>({
  name: 'ClusterMessage',
  tableName: 'cluster_message',
  properties: {
    id: { type: 'string', length: 24, primary: true },
    sender: { type: 'string', length: 48 },
    body: { type: 'text' },
    createdAt: { type: 'datetime', fieldName: 'created_at', index: 'cluster_message_created_at' },
  },
});
