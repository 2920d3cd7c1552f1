import { ErrorNote } from '../components/ErrorNote';
import { t } from '../i18n';

interface ProcedureRow {
  id: number;
  center: number;
  name: string;
  description: string;
  steps: ({ command: string } | { procedure: number })[];
}

interface TaskRow {
  id: number;
  center: number;
  name: string;
  scope: { type: string; id: number } | null;
  steps: ({ procedure: number } | { task: number })[];
}

export interface Catalogue {
  procedures: ProcedureRow[];
  tasks: TaskRow[];
}

const stepText = (step: { command: string } | { procedure: number } | { task: number }) =>
  'command' in step
    ? step.command
    : 'procedure' in step
      ? `${t('scheduler.procedure')} ${step.procedure}`
      : `${t('scheduler.task')} ${step.task}`;

/** The procedures and tasks the scheduler holds, with their ids (what the forms below ask for). */
export function SchedulerCatalogue(props: { catalogue?: Catalogue; error?: unknown; centerName(id: number): string }) {
  const { catalogue } = props;
  return (
    <>
      <ErrorNote error={props.error} />
      <h2>{t('scheduler.procedures')}</h2>
      <table class="grid">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{t('field.name')}</th>
            <th scope="col">{t('kind.center')}</th>
            <th scope="col">{t('scheduler.stepList')}</th>
          </tr>
        </thead>
        <tbody>
          {(catalogue?.procedures ?? []).map((row) => (
            <tr key={row.id} data-procedure={row.id}>
              <td>{row.id}</td>
              <td>{row.name}</td>
              <td>{props.centerName(row.center)}</td>
              <td>{row.steps.map(stepText).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>{t('scheduler.tasks')}</h2>
      <table class="grid">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{t('field.name')}</th>
            <th scope="col">{t('kind.center')}</th>
            <th scope="col">{t('scheduler.scopeType')}</th>
            <th scope="col">{t('scheduler.stepList')}</th>
          </tr>
        </thead>
        <tbody>
          {(catalogue?.tasks ?? []).map((row) => (
            <tr key={row.id} data-task={row.id}>
              <td>{row.id}</td>
              <td>{row.name}</td>
              <td>{props.centerName(row.center)}</td>
              <td>{row.scope ? `${row.scope.type} ${row.scope.id}` : ''}</td>
              <td>{row.steps.map(stepText).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
