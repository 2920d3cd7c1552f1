import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { managesUsers, me, resume, takeSignInError } from './account';
import { session, whenUnauthorized } from './api';
import { applyStates, fleet, loadTree, loadWakeFailures, patchFleet } from './fleet/fleet';
import { followStates } from './fleet/live';
import { trackStates } from './fleet/runs';
import { localized, t, useLang } from './i18n';
import { enabled, may, server, useServer } from './plugins';
import { href, useRoute } from './router';
import './styles.css';
import { useStore } from './store';
import type { VersionInfo } from './types';
import { Audit } from './views/Audit';
import { Dashboard } from './views/Dashboard';
import { Dhcp } from './views/Dhcp';
import { Job } from './views/Job';
import { Jobs } from './views/Jobs';
import { Energy } from './views/Energy';
import { Client } from './views/Client';
import { HardwareReport, SoftwareReport } from './views/Reports';
import { Images } from './views/Images';
import { LanguageSwitch } from './views/LanguageSwitch';
import { Live } from './views/Live';
import { PluginView } from './views/PluginView';
import { Power } from './views/Power';
import { Repositories } from './views/Repositories';
import { Scheduler } from './views/Scheduler';
import { Server } from './views/Server';
import { SignIn } from './views/SignIn';
import { SignedIn } from './views/SignedIn';
import { Users } from './views/Users';
import { Fleet } from './views/fleet/Fleet';

/** The tree is read again this often while states are polled (events say when it changed). */
const treeRefreshMs = 30_000;

/** Back from a provider that did not sign the person in: why (read before the tab's credentials are looked at). */
const refusedAtProvider = takeSignInError();

function App() {
  useLang();
  const info = useServer();
  const [message, setMessage] = useState(() =>
    refusedAtProvider === undefined ? '' : t('signin.providerRefused', { message: refusedAtProvider || '?' }),
  );
  const [checking, setChecking] = useState(!!session.current);

  useEffect(() => {
    whenUnauthorized((reason, by) => {
      me.set(null);
      server.set(null);
      setMessage(t('key' in by ? 'signin.expired' : 'signin.sessionEnded', { reason }));
    });
    // A key kept from earlier in this tab, or a session's cookie (a reload, or back from a provider): check it once.
    if (session.current)
      resume()
        .catch(() => undefined)
        .finally(() => setChecking(false));
  }, []);

  useEffect(() => {
    if (!info || !enabled(info, 'inventory')) return;
    void loadTree();
    const source = enabled(info, 'agents')
      ? followStates(
          (clients) => {
            applyStates(clients);
            trackStates(fleet.value.states);
            // A client that did not wake is news with the states (its run ended, or its agent came).
            if (enabled(info, 'wol')) void loadWakeFailures();
          },
          (live) => patchFleet({ live }),
        )
      : null;
    const timer = setInterval(() => {
      if (fleet.value.live === 'poll') void loadTree();
    }, treeRefreshMs);
    return () => {
      source?.stop();
      clearInterval(timer);
    };
  }, [info]);

  if (checking) return <p class="loading">{t('loading')}</p>;
  if (!info) return <SignIn message={message} onSignedIn={() => setMessage('')} />;
  return <Shell info={info} />;
}

function Shell(props: { info: VersionInfo }) {
  const { info } = props;
  const route = useRoute();
  const who = useStore(me);
  const [page = enabled(info, 'inventory') ? 'dashboard' : 'server', ...rest] = route;
  const views = info.plugins.filter((p) => p.console);
  // A page shows where its plugin is on and the caller may read what it shows (an operator
  // limited to a room is not offered the audit log, the scheduler or the power calendars).
  const offers = (plugin: string, route: string) => enabled(info, plugin) && may(info, route);
  const nav: [string, string, boolean][] = [
    ['dashboard', t('nav.dashboard'), offers('inventory', 'GET /scopes')],
    ['fleet', t('nav.fleet'), offers('inventory', 'GET /scopes')],
    ['images', t('nav.images'), offers('images', 'GET /images')],
    ['live', t('nav.live'), offers('live', 'GET /live/list')],
    ['repositories', t('nav.repositories'), offers('inventory', 'GET /repositories')],
    ['scheduler', t('nav.scheduler'), offers('scheduler', 'GET /tasks')],
    ['hardware', t('nav.hardware'), offers('history', 'GET /reports/hardware')],
    ['software', t('nav.software'), offers('history', 'GET /reports/software')],
    ['jobs', t('nav.jobs'), offers('jobs', 'GET /jobs')],
    ['energy', t('nav.energy'), offers('energy', 'GET /energy')],
    ['power', t('nav.power'), offers('power', 'GET /power/calendars')],
    ['audit', t('nav.audit'), offers('audit', 'GET /audit')],
    ['dhcp', t('nav.dhcp'), offers('dhcp', 'GET /dhcp/status')],
    ['users', t('nav.users'), managesUsers(info, who)],
    ['server', t('nav.server'), true],
  ];
  const shown = new Set(nav.filter(([, , on]) => on).map(([key]) => key));
  const current = page === 'plugin' ? `plugin/${rest[0]}` : page === 'client' ? 'fleet' : page === 'job' ? 'jobs' : page;
  const view = page === 'plugin' ? views.find((p) => p.name === rest[0]) : undefined;
  return (
    <>
      <header class="top">
        <a class="brand" href={href('fleet')}>
          {t('app.name')}
        </a>
        <nav aria-label={t('nav.main')}>
          <ul>
            {nav
              .filter(([, , shown]) => shown)
              .map(([key, label]) => (
                <li key={key}>
                  <a href={href(key)} aria-current={current === key ? 'page' : undefined}>
                    {label}
                  </a>
                </li>
              ))}
            {views.map((p) => (
              <li key={p.name}>
                <a
                  href={href('plugin', p.name)}
                  aria-current={current === `plugin/${p.name}` ? 'page' : undefined}
                  data-plugin-view={p.name}
                >
                  {localized(p.console!.title)}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <LanguageSwitch />
        <SignedIn
          onSignedOut={() => {
            location.hash = '';
          }}
        />
      </header>
      <main>
        {page === 'dashboard' && enabled(info, 'inventory') ? (
          <Dashboard />
        ) : page === 'fleet' && enabled(info, 'inventory') ? (
          <Fleet />
        ) : page === 'client' && rest[0] ? (
          <Client ip={rest[0]} tab={rest[1]} key={rest[0]} />
        ) : page === 'images' && enabled(info, 'images') ? (
          <Images />
        ) : page === 'live' && enabled(info, 'live') ? (
          <Live />
        ) : page === 'repositories' && enabled(info, 'inventory') ? (
          <Repositories />
        ) : page === 'scheduler' && shown.has('scheduler') ? (
          <Scheduler />
        ) : page === 'hardware' && enabled(info, 'history') ? (
          <HardwareReport />
        ) : page === 'software' && enabled(info, 'history') ? (
          <SoftwareReport />
        ) : page === 'jobs' && enabled(info, 'jobs') ? (
          <Jobs />
        ) : page === 'job' && rest[0] && enabled(info, 'jobs') ? (
          <Job id={rest[0]} key={rest[0]} />
        ) : page === 'energy' && enabled(info, 'energy') ? (
          <Energy />
        ) : page === 'power' && shown.has('power') ? (
          <Power />
        ) : page === 'dhcp' && shown.has('dhcp') ? (
          <Dhcp />
        ) : page === 'audit' && shown.has('audit') ? (
          <Audit />
        ) : page === 'users' && managesUsers(info, who) ? (
          <Users />
        ) : view ? (
          <PluginView name={view.name} view={view.console!} key={view.name} />
        ) : page === 'server' ? (
          <Server />
        ) : (
          <p>{t('notFound')}</p>
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
