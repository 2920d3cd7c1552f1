import { definePlugin } from 'ogserve';
import { AgentCommands, AgentLink, askerOf, DispatchAnswer, dispatchAnswer, paramsOf, sendCommand, withClients } from '../agents';
import { readShellAnswer } from './answer';
import { type ShellResult, ShellResults } from './results';
import { ScriptList, ShellConfig, ShellOutputAnswer, ShellOutputQuery, ShellParams } from './schemas';
import { listScripts } from './scripts';

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
    const results = ctx.make(ShellResults);

    // Scripts are run by the agent only: the server never runs request text.
    const run = ctx.use(AgentCommands).define({
      name: 'run',
      path: 'shell/run',
      params: ShellParams,
      // Echo asks the agent to send the output back, so that /shell/output has something to show.
      request: (params) => ({ method: 'POST', path: 'shell/run', body: { ...params, echo: params.echo ?? true } }),
      // The reference queues scripts without echo: a scheduled script's output is not kept.
      queuedDefaults: { echo: false },
      stored: (client, answer) => {
        const { out, retcode, cmd } = readShellAnswer(answer.body);
        const result = { cmd: results.commandOf(client.ip) ?? cmd ?? '', retcode, timestamp: Math.floor(Date.now() / 1000), output: out };
        tellOthers('shell.output', { ip: client.ip, result: results.store(client.ip, result) });
        // What the script reported is the command's outcome: a non-zero exit code is a failure.
        return retcode !== null && retcode !== 0 ? 'failure' : undefined;
      },
    });
    ctx.events.on('client.removed', (client) => results.forget(client.ip));
    // Every instance shows the same output: what one stored or started, the others keep too.
    const tellOthers = (topic: string, payload: unknown) => ctx.cluster.broadcast(topic, payload);
    ctx.cluster.on<{ ip: string; result: ShellResult }>('shell.output', ({ ip, result }) => results.store(ip, result));
    ctx.cluster.on<string>('shell.started', (ip) => results.forget(ip));

    const spec = { permission: 'shell', scoped: { clients: 'clients' }, body: withClients(ShellParams), response: DispatchAnswer } as const;
    ctx.router.post('/shell/run', spec, async ({ body, access, req }) => {
      const dispatch = await sendCommand(link, run, paramsOf(body), body.clients, askerOf(access, req));
      for (const [ip, answer] of dispatch.answers) {
        results.started(ip, body.run);
        tellOthers('shell.started', ip);
        const done = () => results.finished(ip);
        answer.then(done, done);
      }
      return dispatchAnswer(dispatch);
    });

    const output = ({ body }: { body: { clients: string[] } }) => ({ clients: results.view(body.clients) });
    // What the commands printed is as sensitive as running them.
    const outputSpec = {
      permission: 'shell',
      scoped: { clients: 'clients' },
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
