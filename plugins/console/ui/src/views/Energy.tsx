import { useState } from 'preact/hooks';
import { download, get } from '../api';
import { ErrorNote } from '../components/ErrorNote';
import { Field } from '../components/Field';
import { TableScroll } from '../components/TableScroll';
import { t } from '../i18n';
import { href } from '../router';
import type { EnergyReport, RoomNow } from '../types';
import { useAsync } from '../useAsync';

const dayMs = 86_400_000;
const ranges = ['1', '7', '30', '90'] as const;
/** The states drawn in the chart (off is the rest of each day), with their colours. */
const onStates = [
  ['idle', '#d9822b'],
  ['session', '#2b7bd9'],
  ['busy', '#7a5cc7'],
] as const;

/** "since" as hours and minutes ago. */
function ago(since: string, now: number): string {
  const minutes = Math.max(0, Math.round((now - Date.parse(since)) / 60_000));
  return t('energy.ago', { h: Math.floor(minutes / 60), m: minutes % 60 });
}

/** Stacked bars of the hours on in each state, a bar per day. */
function DayChart(props: { report: EnergyReport }) {
  const days = props.report.groups;
  const top = Math.max(1, ...days.map((d) => d.hours.idle + d.hours.session + d.hours.busy));
  const width = 24;
  const height = 160;
  return (
    <figure>
      <svg
        role="img"
        aria-label={t('energy.chart')}
        width={Math.max(1, days.length) * width + 40}
        height={height + 30}
        viewBox={`0 0 ${Math.max(1, days.length) * width + 40} ${height + 30}`}
      >
        <text x="0" y="12" font-size="11">
          {t('energy.hoursShort', { hours: Math.round(top) })}
        </text>
        {days.map((d, i) => {
          let y = height + 10;
          return (
            <g key={d.id} data-day={d.name}>
              <title>{`${d.name}: ${onStates.map(([s]) => `${t(`energy.${s}`)} ${d.hours[s]} h`).join(', ')}`}</title>
              {onStates.map(([s, colour]) => {
                const h = (d.hours[s] / top) * height;
                y -= h;
                return <rect key={s} data-state={s} x={40 + i * width} y={y} width={width - 4} height={h} fill={colour} />;
              })}
              <text x={40 + i * width} y={height + 25} font-size="9">
                {d.name.slice(8)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        {onStates.map(([s, colour]) => (
          <span key={s} class="legend">
            <span style={{ background: colour, display: 'inline-block', width: '0.8em', height: '0.8em' }} /> {t(`energy.${s}`)}{' '}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** The Energy page: per room, the PCs on with nobody using them (GET /energy/now), hours and kWh over a range, a chart by day. */
export function Energy() {
  const [days, setDays] = useState<string>('7');
  const [error, setError] = useState<unknown>(null);
  const [to] = useState(() => Date.now());
  // From a UTC midnight: the server keeps each midnight's reading, so such a range is quick to count.
  const from = Math.floor(to / dayMs) * dayMs - Number(days) * dayMs;
  const now = useAsync(() => get<{ rooms: RoomNow[] }>('/energy/now'), []);
  const byRoom = useAsync(() => get<EnergyReport>(`/energy?by=room&from=${from}&to=${to}`), [days]);
  const byDay = useAsync(() => get<EnergyReport>(`/energy?by=day&from=${from}&to=${to}`), [days]);
  const rooms = now.value?.rooms ?? [];
  return (
    <section aria-labelledby="energy-title">
      <h1 id="energy-title">{t('nav.energy')}</h1>
      <h2>{t('energy.idleTitle')}</h2>
      <ErrorNote error={now.error} />
      {now.value && rooms.every((r) => r.counts.idle === 0) && <p class="hint">{t('energy.noIdle')}</p>}
      <ul class="energy-rooms">
        {rooms
          .filter((r) => r.counts.idle > 0)
          .map((room) => (
            <li key={room.id} data-room={room.name}>
              <strong>{room.name}</strong> ({room.center}): {t('energy.counts', room.counts)}
              <ul>
                {room.pcs
                  .filter((pc) => pc.state === 'idle')
                  .map((pc) => (
                    <li key={pc.ip} data-idle={pc.ip}>
                      <a href={href('client', pc.ip)}>{pc.name || pc.ip}</a> {pc.ip} · {ago(pc.since!, to)}
                    </li>
                  ))}
              </ul>
            </li>
          ))}
      </ul>
      <h2>{t('energy.rangeTitle')}</h2>
      <div class="form-grid">
        <Field
          label={t('energy.range')}
          name="days"
          value={days}
          onInput={setDays}
          options={ranges.map((d) => ({ value: d, label: t('energy.lastDays', { days: d }) }))}
        />
      </div>
      <div class="buttons">
        <button
          type="button"
          onClick={() => download(`/energy?by=room&from=${from}&to=${to}&format=csv`, 'energy-by-room.csv').catch(setError)}
        >
          {t('reports.csv')}
        </button>
      </div>
      <ErrorNote error={byRoom.error ?? byDay.error ?? error} />
      {byRoom.value && (
        <TableScroll>
          <table class="grid" data-energy="rooms">
            <thead>
              <tr>
                <th scope="col">{t('energy.room')}</th>
                <th scope="col">{t('reports.count')}</th>
                {(['off', 'idle', 'session', 'busy', 'unknown'] as const).map((s) => (
                  <th scope="col" key={s}>
                    {t('energy.hoursOf', { state: t(`energy.${s}`) })}
                  </th>
                ))}
                <th scope="col">kWh</th>
              </tr>
            </thead>
            <tbody>
              {[...byRoom.value.groups, { ...byRoom.value.total, id: 0, name: t('reports.total') }].map((g) => (
                <tr key={g.id} data-room={g.name}>
                  <th scope="row">{g.name}</th>
                  <td>{g.clients}</td>
                  {(['off', 'idle', 'session', 'busy', 'unknown'] as const).map((s) => (
                    <td key={s} data-state={s}>
                      {g.hours[s].toFixed(1)}
                    </td>
                  ))}
                  <td data-kwh>{g.kwh.total.toFixed(2)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {byDay.value && <DayChart report={byDay.value} />}
    </section>
  );
}
