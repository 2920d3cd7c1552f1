import { EntitySchema } from '@mikro-orm/core';

/** A client's state in a job: sent, then how it ended; skipped when it was never sent. */
export const jobStates = ['sent', 'done', 'failed', 'timed_out', 'skipped'] as const;
export type JobState = (typeof jobStates)[number];

/**
 * One client of a job. The address and room are kept as they were when the job was made
 * (a client removed later keeps its line), so no foreign key to the inventory. `reason`
 * says why a client was skipped (`not_connected`, `busy`); `status` is the agent's answer
 * status, `outcome` what happened in words, `code` and `output` what the command reported of
 * itself (a script's exit code and the end of what it printed). Times are milliseconds since 1970.
 */
export interface JobClient {
  id: number;
  jobId: number;
  ip: string;
  /** The client's room id when the job was made; 0 for an address no client had. */
  room: number;
  state: JobState;
  reason: string;
  status: number | null;
  outcome: string;
  sentAt: number | null;
  endedAt: number | null;
  /** The exit code the agent reported (a script's), null when it reported none. */
  code: number | null;
  /** The end of what the command printed, null when the agent sent none. */
  output: string | null;
}

export const JobClientEntity = new EntitySchema<JobClient>({
  name: 'JobClient',
  tableName: 'job_clients',
  indexes: [
    { name: 'job_clients_job', properties: ['jobId'] },
    { name: 'job_clients_ip', properties: ['ip', 'jobId'] },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    jobId: { type: 'integer', fieldName: 'job_id' },
    ip: { type: 'string', length: 15 },
    room: { type: 'integer', default: 0 },
    state: { type: 'string', length: 16 },
    reason: { type: 'string', length: 32, default: '' },
    status: { type: 'integer', nullable: true },
    outcome: { type: 'text' },
    sentAt: { type: 'double', fieldName: 'sent_at', nullable: true },
    endedAt: { type: 'double', fieldName: 'ended_at', nullable: true },
    code: { type: 'integer', nullable: true },
    output: { type: 'text', nullable: true },
  },
});
