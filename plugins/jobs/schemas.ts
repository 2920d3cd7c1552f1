import { Type } from '@sinclair/typebox';
import { jobStates } from './entities/job-client';

const Time = () => Type.String({ description: 'ISO 8601' });
const State = Type.Union(jobStates.map((s) => Type.Literal(s)));
const Counts = Type.Object(Object.fromEntries(jobStates.map((s) => [s, Type.Optional(Type.Integer())])), {
  description: 'clients by state, of those the caller may see',
});

const summary = {
  id: Type.Integer(),
  kind: Type.String({ description: "the agent path of the command, e.g. 'image/restore'" }),
  who: Type.Union([Type.String(), Type.Null()], { description: "who asked: a token's or a person's name, 'scheduler'" }),
  source: Type.Union([Type.String(), Type.Null()], {
    description: "where that name comes from: 'key', 'token', 'local', 'ldap', 'scheduler'...",
  }),
  params: Type.Unknown({ description: 'what was asked besides the clients' }),
  created: Time(),
  finished: Type.Union([Time(), Type.Null()], { description: 'when the last client ended; null while one runs' }),
  total: Type.Integer(),
  states: Counts,
};

export const JobsPage = Type.Object({
  jobs: Type.Array(Type.Object(summary)),
  next: Type.Union([Type.Integer(), Type.Null()], { description: 'the `before` of the next page; null on the last' }),
});

export const JobDetail = Type.Object({
  ...summary,
  clients: Type.Array(
    Type.Object({
      addr: Type.String(),
      room: Type.Integer({ description: "the client's room when the job was made; 0 for an address no client had" }),
      state: State,
      reason: Type.String({ description: "why it was skipped: 'not_connected' or 'busy'; '' otherwise" }),
      status: Type.Union([Type.Integer(), Type.Null()], { description: "the agent's answer status" }),
      outcome: Type.String({ description: "what happened in words: 'success', 'exit code 1', 'the agent answered 500'" }),
      code: Type.Union([Type.Integer(), Type.Null()], { description: 'the exit code the agent reported (a script), null when none' }),
      sent: Type.Union([Time(), Type.Null()]),
      ended: Type.Union([Time(), Type.Null()]),
    }),
    { description: 'a page of its clients, in the order they were sent (`limit`, 500 unless asked, at most 1,000)' },
  ),
  next: Type.Union([Type.Integer(), Type.Null()], { description: 'the `after` of the next page of clients; null on the last' }),
});

export const JobOutput = Type.Object({
  addr: Type.String(),
  code: Type.Union([Type.Integer(), Type.Null()], { description: 'the exit code the agent reported, null when none' }),
  output: Type.Union([Type.String(), Type.Null()], {
    description: 'the end of what the command printed (its last 4,000 characters), null when the agent sent none',
  }),
});
