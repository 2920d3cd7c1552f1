import 'reflect-metadata';
import { container } from 'tsyringe';
import type { AgentLink } from '../../../plugins/agents';
import { ManualClock } from '../../../testing';
import { Scheduler, SchedulerClock } from '../../../plugins/scheduler';
import type { FakeAgent } from '../../support/fake-agent';
import { addresses, startLab } from '../../support/lab';
import type { TestServer } from '../../support/server';

/** Sunday 22 November 2026, 10:00 local time: "now" in these tests. */
export const NOW = new Date(2026, 10, 22, 10, 0).getTime();
// shell: the tests queue scripts, a command the shell plugin defines.
export const PLUGINS = ['inventory', 'agents', 'wol', 'shell', 'groups', 'scheduler'];

export interface SchedulerSite {
  s: TestServer;
  clock: ManualClock;
  scheduler: Scheduler;
  link: AgentLink;
  center: number;
  room: number;
  /** The id of the clients' repository when `repository` was given, else 0. */
  repository: number;
  /** Client addresses known to the inventory: 127.0.2.1, 127.0.2.2, ... */
  ips: string[];
  connect(ip: string): Promise<FakeAgent>;
  close(): Promise<void>;
}

export interface SiteOptions {
  clients?: number;
  now?: number;
  scheduler?: Record<string, unknown>;
  /** The server's directory: give the same one to a second site to test a restart. */
  dir?: string;
  /** Add a center, a room and the clients (default); false on a restart. */
  populate?: boolean;
  /** Plugins enabled besides PLUGINS (images, for image steps). */
  plugins?: string[];
  /** Plugins of PLUGINS left out (shell, to see its command unknown). */
  without?: string[];
  /** wol.port: where wake steps send (a UdpReceiver's port). */
  wolPort?: number;
  /** Addresses of a repository every client is given (`repository` in the site). */
  repository?: string[];
}

/**
 * A server with the scheduler enabled and a ManualClock injected through the
 * SchedulerClock token, so that tests move time instead of sleeping.
 */
export async function schedulerSite(options: SiteOptions = {}): Promise<SchedulerSite> {
  const clock = new ManualClock(options.now ?? NOW);
  const services = container.createChildContainer();
  services.register(SchedulerClock, { useValue: clock });
  const config = {
    plugins: [...PLUGINS.filter((p) => !options.without?.includes(p)), ...(options.plugins ?? [])],
    scheduler: options.scheduler ?? {},
    ...(options.wolPort === undefined ? {} : { wol: { port: options.wolPort } }),
  };
  let repository = 0;
  const lab = await startLab({
    ips: addresses('127.0.2', options.clients ?? 2),
    server: { dir: options.dir, container: services, config },
    populate: options.populate === false ? false : undefined,
    async prepare(s) {
      if (!options.repository) return undefined;
      repository = (await s.post('/repository/add', { name: 'repo', ip: options.repository })).body.id;
      return { repo_id: repository };
    },
    // The real agent answers run/schedule 200 with no body.
    onAgent: (agent) => agent.on('run/schedule', { status: 200 }, true),
    serverFirst: true,
  });
  return {
    ...lab,
    clock,
    scheduler: lab.s.app.container.resolve(Scheduler),
    repository,
    connect: (ip) => lab.connect(ip),
  };
}

/** A `when` for one local minute, with `years` as given (a year, a list or a mask). */
export function whenFor(date: Date, years: number | number[] = date.getFullYear()) {
  const hour = date.getHours();
  return {
    years,
    months: 1 << date.getMonth(),
    weeks: 0,
    week_days: 0,
    days: 1 << (date.getDate() - 1),
    hours: 1 << (hour % 12),
    am_pm: hour >= 12 ? 1 : 0,
    minutes: date.getMinutes(),
  };
}

/** Every endpoint of the scheduler plugin. */
export const ENDPOINTS = [
  '/procedure/add',
  '/procedure/update',
  '/procedure/run',
  '/procedure/delete',
  '/task/add',
  '/task/run',
  '/schedule/command',
  '/schedule/create',
  '/schedule/update',
  '/schedule/delete',
  '/schedule/get',
  '/run/schedule',
];
