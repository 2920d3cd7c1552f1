import type { LegacySource } from '../legacy-source';
import type { LegacyAction } from '../model';
import { int, text, textOrNull, type Row } from './values';

/** `programaciones.tipoaccion` of schedules that fire the actions of a session: command and procedure. */
const sessionKinds = '(1, 2)';

/**
 * The actions command and procedure schedules fire (those whose session a schedule names),
 * and how many others the table holds: the history of what ran, which is not imported.
 */
export async function readActions(source: LegacySource): Promise<{ actions: LegacyAction[]; history: number }> {
  const rows = await source.query<Row>(
    `select a.idaccion, a.idordenador, a.sesion, a.parametros, c.funcion from acciones a
      left join comandos c on c.idcomando = a.idcomando
      where a.sesion in (select identificador from programaciones where tipoaccion in ${sessionKinds})
      order by a.sesion, a.idaccion`,
  );
  const [{ n }] = (await source.query<{ n: number }>('select count(*) as n from acciones')) as [{ n: number }];
  return {
    actions: rows.map((r) => ({
      id: int(r.idaccion),
      clientId: int(r.idordenador),
      session: int(r.sesion),
      text: text(r.parametros),
      catalogueFunction: textOrNull(r.funcion),
    })),
    history: Number(n) - rows.length,
  };
}
