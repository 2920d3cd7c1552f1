import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import { decodeLegacyCommand } from '../../../cli/import-opengnsys/legacy-commands';
import { openTarget, type Target } from '../../../cli/import-opengnsys/target';
import { makeImportTarget } from '../../support/import-target';
import { removeTestStore } from '../../support/server';

// The steps are checked as the importer checks them: by the commands a target with every plugin defines.
let target: Target;
let dir: string;
test.before(async () => {
  const made = await makeImportTarget();
  dir = made.dir;
  target = await openTarget(made.configFile, new Writable({ write: (_chunk, _encoding, done) => done() }));
});
test.after(async () => {
  await target.close();
  await removeTestStore(dir);
});

const check = (command: string, params: Record<string, unknown>) => target.rules.scheduler!.check(command, params, 'command', 'params');

/** Decode, and check that the scheduler takes the result as a step. */
function decoded(text: string, catalogue: string | null = null): { command: string; params: Record<string, unknown> } {
  const result = decodeLegacyCommand(text, catalogue);
  assert.ok(result.ok, `${JSON.stringify(text)}: ${result.ok ? '' : result.reason}`);
  check(result.command, result.params);
  return { command: result.command, params: result.params };
}

test('wake-on-LAN steps keep their packet kind: mar=1 broadcast, mar=2 unicast', () => {
  assert.deepEqual(decoded('nfn=Arrancar\rmar=1'), { command: 'wol', params: { type: 'broadcast' } });
  assert.deepEqual(decoded('nfn=Arrancar\rmar=2'), { command: 'wol', params: { type: 'unicast' } });
  assert.deepEqual(decoded('nfn=Arrancar'), { command: 'wol', params: { type: 'broadcast' } });
});

test('commands without params, the web console older ones included', () => {
  for (const [nfn, command] of [
    ['Apagar', 'poweroff'],
    ['Reiniciar', 'reboot'],
    ['InventarioHardware', 'hardware'],
    ['Actualizar', 'refresh'],
    ['Purgar', 'stop'],
  ]) {
    assert.deepEqual(decoded(`nfn=${nfn}`), { command: command!, params: {} });
  }
});

test('session and software name disk and partition as the scheduler expects them', () => {
  assert.deepEqual(decoded('nfn=IniciarSesion\rdsk=1\rpar=2'), { command: 'session', params: { disk: '1', part: '2' } });
  assert.deepEqual(decoded('nfn=InventarioSoftware\rdsk=1\rpar=3'), { command: 'software', params: { disk: '1', partition: '3' } });
});

test('a script runs to the end of the text, carriage returns and equals signs included', () => {
  assert.deepEqual(decoded('nfn=EjecutarScript\rscp=echo a=b; ls\rwho'), { command: 'run', params: { run: 'echo a=b; ls\rwho' } });
});

test('image create and restore keep every field; an empty profile is left out', () => {
  assert.deepEqual(decoded('nfn=CrearImagen\rdsk=1\rpar=1\rcpt=7\ridi=4\rnci=Win10\ripr=10.1.0.10'), {
    command: 'image_create',
    params: { disk: '1', partition: '1', code: '7', id: '4', name: 'Win10', repository: '10.1.0.10' },
  });
  assert.deepEqual(decoded('nfn=RestaurarImagen\rdsk=1\rpar=2\ridi=4\rnci=Win10\ripr=10.1.0.10\rifs=\rptc=TIPTORRENT'), {
    command: 'image_restore',
    params: { disk: '1', partition: '2', id: '4', name: 'Win10', repository: '10.1.0.10', type: 'TIPTORRENT' },
  });
});

test('a partitioning step becomes the setup params, one entry per partition', () => {
  const text =
    'nfn=Configurar\rttp=GPT\rdsk=1\rcfg=dis=1*che=1*tch=10000000!par=1*cpt=NTFS*sfi=NTFS*tam=50000000*ope=0%par=2*cpt=LINUX*sfi=EXT4*tam=40000000*ope=1%';
  assert.deepEqual(decoded(text), {
    command: 'setup',
    params: {
      type: 'GPT',
      disk: '1',
      cache: '1',
      cache_size: '10000000',
      partition_setup: [
        { partition: '1', code: 'NTFS', filesystem: 'NTFS', size: '50000000', format: '0' },
        { partition: '2', code: 'LINUX', filesystem: 'EXT4', size: '40000000', format: '1' },
      ],
    },
  });
});

test('without nfn the function the catalogue names for idcomando is used', () => {
  assert.deepEqual(decoded('dsk=1\rpar=1', 'IniciarSesion'), { command: 'session', params: { disk: '1', part: '1' } });
  assert.deepEqual(decoded('nfn=Apagar', 'Reiniciar'), { command: 'poweroff', params: {} }, 'the text wins over the catalogue');
});

test('commands ogserve does not run, and text that names none, come back with the reason', () => {
  assert.deepEqual(decodeLegacyCommand('nfn=EnviarMensaje\rtit=a\rmsj=b'), {
    ok: false,
    reason: "'EnviarMensaje' is a command ogserve does not run",
  });
  assert.deepEqual(decodeLegacyCommand('nfn=toString'), { ok: false, reason: "'toString' is a command ogserve does not run" });
  assert.deepEqual(decodeLegacyCommand('dsk=1'), { ok: false, reason: 'the step names no command (no nfn= in its text)' });
  const broken = decodeLegacyCommand('nfn=Configurar\rttp=MSDOS\rdsk=1\rcfg=par=1');
  assert.equal(broken.ok, false);
});

test('values the scheduler refuses are decoded as they are, for its check to name them', () => {
  const result = decodeLegacyCommand('nfn=Configurar\rdsk=1\rcfg=dis=1*che=0*tch=0!par=1*cpt=NTFS*sfi=NTFS*tam=1*ope=0%');
  assert.ok(result.ok);
  assert.throws(() => check(result.command, result.params), /'params.type' is required/);
});

test.run();
