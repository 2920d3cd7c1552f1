import { type Static, Type } from '@sinclair/typebox';
import { Port } from 'ogserve';

/** The `transfers` config section. */
export const TransfersConfig = Type.Object(
  {
    /**
     * Who sends the bytes of boot files and images: `ogserve` itself, or the `nginx` in front of
     * it (packaging/nginx/ogserve.conf), which ogserve hands each file to with X-Accel-Redirect
     * after deciding who gets what.
     */
    handoff: Type.Union([Type.Literal('ogserve'), Type.Literal('nginx')], { default: 'ogserve' }),
    /** The loopback UDP port where nginx's access log tells ogserve how each handed-off transfer went. */
    handoff_log_port: Port({ default: 8890 }),
  },
  { additionalProperties: false },
);

export type TransfersSettings = Static<typeof TransfersConfig>;
