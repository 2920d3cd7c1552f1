import { definePlugin } from '../../core/plugin';
import { AgentLink, DispatchAnswer } from '../agents';
import { Inventory } from '../inventory';
import { readShellAnswer } from './answer';
import { ShellResults } from './results';
import { ScriptList, ShellConfig, ShellOutputAnswer, ShellOutputQuery, ShellRun } from './schemas';
import { listScripts } from './scripts';

const shellRunPath = 'shell/run';

/**
 * Shell commands on clients: relayed to their agents only (the server never runs request
 * text), with the newest result of each client kept in memory for GET/POST /shell/output.
 */
export default definePlugin({
  name: 'shell',
  requires: ['inventory', 'agents'],
  config: ShellConfig,
  register(ctx) {
    const link = ctx.use(AgentLink);
    const results = new ShellResults(ctx.config.max_output_bytes);

    link.onAnswer(shellRunPath, (client, answer) => {
      const { out, retcode, cmd } = readShellAnswer(answer.body);
      results.store(client.ip, {
        cmd: results.commandOf(client.ip) ?? cmd ?? '',
        retcode,
        timestamp: Math.floor(Date.now() / 1000),
        output: out,
      });
    });
    ctx.use(Inventory).onClientRemoved((client) => results.forget(client.ip));

    ctx.router.post('/shell/run', { permission: 'shell', scoped: 'clients', body: ShellRun, response: DispatchAnswer }, ({ body }) => {
      const { clients: _clients, ...relayed } = body;
      const dispatch = link.dispatch(body.clients, { method: 'POST', path: shellRunPath, body: { ...relayed, echo: body.echo ?? true } });
      for (const [ip, answer] of dispatch.answers) {
        results.started(ip, body.run);
        const done = () => results.finished(ip);
        answer.then(done, done);
      }
      return { clients: dispatch.outcomes };
    });

    const output = ({ body }: { body: { clients: string[] } }) => ({ clients: results.view(body.clients) });
    // What the commands printed is as sensitive as running them.
    const outputSpec = {
      permission: 'shell',
      scoped: 'clients',
      // Reading what was printed changes nothing: not an audited action.
      audit: false,
      body: ShellOutputQuery,
      response: ShellOutputAnswer,
      summary: "Each client's newest finished shell result",
    } as const;
    ctx.router.get('/shell/output', outputSpec, output);
    ctx.router.post('/shell/output', outputSpec, output);

    ctx.router.get(
      '/shell/list',
      { permission: 'read', scoped: 'open', bodyPolicy: 'ignored', response: ScriptList, summary: 'The scripts clients may run' },
      async () => ({
        scripts: await listScripts(ctx.config.scripts_dir),
      }),
    );
  },
});
