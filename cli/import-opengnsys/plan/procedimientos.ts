import { bundledParts } from '../parts';
import type { LegacyProcedure } from '../model';
import { refusalOf } from './body-check';
import { UniqueKeys, alreadyThere, idRefusal, keep, label, type Planning, refuse } from './context';
import type { ProcedureRecord } from './records';
import { commandStep, decideWithIncludes } from './scheduler-steps';

const { ProcedureAdd } = bundledParts.scheduler.bodies;

const table = 'procedimientos';
const columns = { name: 'descripcion', description: 'comentarios' };

/**
 * Procedures, by POST /procedure/add's rules: names unique within a center, every command
 * step one the scheduler runs with params it accepts, no procedure including itself. A
 * procedure that includes a refused one is refused too: running it would skip steps.
 */
export function planProcedures(p: Planning): void {
  p.ledger.read(table, p.site.procedures.length);
  const names = new UniqueKeys('name', p.rules.held.keys.procedureNames);
  const candidates: { legacy: LegacyProcedure; row: string; steps: ProcedureRecord['steps'] }[] = [];
  for (const procedure of p.site.procedures) {
    const row = label(table, procedure.id, procedure.name);
    const nameKey = `${procedure.centerId}\u0000${procedure.name}`;
    const legacy = { row, identity: nameKey, held: p.rules.held.rows.procedures, what: 'center and name' };
    if (alreadyThere(p, p.procedures, table, procedure.id, p.rules.held.procedures, legacy)) continue;
    const body = { center: procedure.centerId, name: procedure.name, description: procedure.comment ?? '' };
    const steps: ProcedureRecord['steps'] = [];
    let reason = idRefusal(procedure.id) ?? p.centers.whyNot(procedure.centerId) ?? refusalOf(ProcedureAdd, body, columns, table);
    for (const [i, step] of procedure.steps.entries()) {
      if (reason !== undefined) break;
      if (step.kind === 'procedure') {
        steps.push({ procedure: step.procedureId });
        continue;
      }
      const checked = commandStep(p.rules.scheduler!, step.text, step.catalogueFunction, `steps[${i}]`);
      if (typeof checked === 'string') reason = checked;
      else steps.push(checked);
    }
    reason ??= names.taken(nameKey, `${JSON.stringify(procedure.name)} in center ${procedure.centerId}`);
    if (reason !== undefined) {
      refuse(p, p.procedures, table, row, procedure.id, reason);
      continue;
    }
    names.hold(nameKey, row);
    candidates.push({ legacy: procedure, row, steps });
  }
  decideWithIncludes(
    table,
    candidates.map((c) => ({ ...c, id: c.legacy.id })),
    (c) => c.steps.flatMap((s) => ('procedure' in s ? [s.procedure] : [])),
    (c, refusal) => {
      const { legacy, row, steps } = c;
      let reason = refusal;
      for (const [i, step] of steps.entries()) {
        if (reason !== undefined) break;
        const why = 'procedure' in step ? p.procedures.whyNot(step.procedure) : undefined;
        if (why !== undefined) reason = `steps[${i}] includes a procedure ogserve will not have: ${why}`;
      }
      if (reason !== undefined) {
        refuse(p, p.procedures, table, row, legacy.id, reason);
        return;
      }
      p.plan.procedures.push(
        keep(p, p.procedures, table, legacy.id, {
          id: legacy.id,
          centerId: legacy.centerId,
          name: legacy.name,
          description: legacy.comment ?? '',
          steps,
        }),
      );
    },
  );
}
