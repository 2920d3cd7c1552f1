import { Counter, Gauge, Histogram } from 'prom-client';
import type { PluginContext } from 'ogserve';
import type { AgentLink } from './link';

type Outcome = 'answered' | 'failed' | 'timed_out';

/**
 * The agents' Prometheus figures: agents connected by the state GET /clients shows, read
 * at each scrape, and every command by kind (its agent path) and outcome, with its duration,
 * counted from the link's own events.
 */
export function agentMetrics(ctx: Pick<PluginContext, 'metrics' | 'events'>, link: AgentLink): void {
  new Gauge({
    name: 'ogserve_agents_connected',
    help: 'Agents connected, by the state GET /clients shows',
    labelNames: ['state'],
    registers: [ctx.metrics],
    collect() {
      this.reset();
      for (const [state, count] of link.stateCounts()) this.set({ state }, count);
    },
  });
  const commands = new Counter({
    name: 'ogserve_agent_commands_total',
    help: 'Commands sent to agents, by command and outcome (sent, answered, failed, timed_out)',
    labelNames: ['command', 'outcome'],
    registers: [ctx.metrics],
  });
  const durations = new Histogram({
    name: 'ogserve_agent_command_duration_seconds',
    help: 'From a command sent to its end, by command and outcome',
    labelNames: ['command', 'outcome'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600],
    registers: [ctx.metrics],
  });
  const ended = (payload: { command: string; outcome: Outcome; duration_ms: number }) => {
    commands.inc({ command: payload.command, outcome: payload.outcome });
    durations.observe({ command: payload.command, outcome: payload.outcome }, payload.duration_ms / 1000);
  };
  ctx.events.on('command.sent', ({ command }) => commands.inc({ command, outcome: 'sent' }));
  ctx.events.on('command.answered', ended);
  ctx.events.on('command.failed', ended);
  ctx.events.on('command.timed_out', ended);
}
