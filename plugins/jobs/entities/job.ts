import { EntitySchema } from '@mikro-orm/core';

/**
 * One command sent to agents (a REST call, a shell run, a scheduled step): what was asked,
 * by whom, when. `who` and `source` are the caller's access name and source ('' when the
 * caller said nothing); `params` the JSON of what was asked besides the clients. Times are
 * milliseconds since 1970; `finishedAt` is null while a client has not ended.
 */
export interface Job {
  id: number;
  kind: string;
  who: string;
  source: string;
  params: string;
  createdAt: number;
  finishedAt: number | null;
}

export const JobEntity = new EntitySchema<Job>({
  name: 'Job',
  tableName: 'jobs',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    kind: { type: 'string', length: 64, index: 'jobs_kind' },
    who: { type: 'string', length: 255, index: 'jobs_who' },
    source: { type: 'string', length: 64 },
    params: { type: 'text' },
    createdAt: { type: 'double', fieldName: 'created_at', index: 'jobs_created_at' },
    finishedAt: { type: 'double', fieldName: 'finished_at', nullable: true },
  },
});
