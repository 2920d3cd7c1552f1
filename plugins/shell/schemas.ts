import { Type } from '@sinclair/typebox';
import { IpList } from 'ogserve';

/**
 * The `run` command (POST /shell/run besides its clients, and a queued script step).
 * Other keys (e.g. `inline`) are relayed untouched, as the reference does.
 */
export const ShellParams = Type.Object({
  run: Type.String({ minLength: 1 }),
  echo: Type.Optional(Type.Boolean()),
});

export const ShellOutputQuery = Type.Object({ clients: IpList() });

export const ShellConfig = Type.Object(
  {
    /** Folder whose files GET /shell/list offers as client scripts; created if missing. */
    scripts_dir: Type.String({ default: 'client-scripts', path: true }),
    /** Bytes of output kept per client (the end of longer output). */
    max_output_bytes: Type.Integer({ default: 65536, minimum: 1024 }),
  },
  { additionalProperties: false },
);

/** The newest finished result of each asked client that has one; `retcode` is null when its agent did not report one. */
export const ShellOutputAnswer = Type.Object({
  clients: Type.Array(
    Type.Object({
      addr: Type.String(),
      retcode: Type.Union([Type.Integer(), Type.Null()]),
      cmd: Type.String(),
      timestamp: Type.Integer(),
      output: Type.String(),
    }),
  ),
});

export const ScriptList = Type.Object({ scripts: Type.Array(Type.String()) });
