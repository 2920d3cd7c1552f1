import type { Database, PluginEvents } from 'ogserve';
import type { TimelineEntry } from '../history';

interface Row {
  boot: number | string;
  stage: string;
  at: number | string;
  state: string | null;
  cut_short: boolean | number | null;
}

/**
 * The boot plugin's part of a PC's timeline (the history plugin asks; neither requires the
 * other): each network boot kept, with its stages in order and the state its agent came up in.
 */
export function bootsTimeline(events: Pick<PluginEvents, 'on'>, db: Database): void {
  events.on(
    'client.timeline',
    async (question) => {
      const boots = await db.query<{ boot: number | string }>(
        'select distinct boot from boot_stages where client_id = ? and boot < ? order by boot desc limit ?',
        [question.client.id, question.before, question.limit],
      );
      if (boots.length === 0) return;
      const rows = await db.query<Row>(
        `select boot, stage, at, state, cut_short from boot_stages where client_id = ? and boot in (${boots.map(() => '?').join(', ')}) order by boot desc, at asc, id asc`,
        [question.client.id, ...boots.map((b) => b.boot)],
      );
      const byBoot = new Map<string, Row[]>();
      for (const row of rows) byBoot.set(String(row.boot), [...(byBoot.get(String(row.boot)) ?? []), row]);
      question.add(
        [...byBoot].map(([boot, stages]): TimelineEntry => {
          const last = stages[stages.length - 1]!;
          const up = stages.find((s) => s.stage === 'agent');
          return {
            time: new Date(Number(boot)).toISOString(),
            kind: 'boot',
            summary: `network boot: ${stages.map((s) => s.stage).join(', ')}${up?.state ? ` (${up.state})` : ''}`,
            who: null,
            source: null,
            state: up ? 'up' : last.stage,
            job: null,
            data: {
              stages: stages.map((s) => ({
                stage: s.stage,
                at: new Date(Number(s.at)).toISOString(),
                ...(s.state ? { state: s.state } : {}),
                ...(s.cut_short ? { cut_short: true } : {}),
              })),
            },
          };
        }),
      );
    },
    "add the PC's network boots to its timeline",
  );
}
