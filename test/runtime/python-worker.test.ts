import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { suiteFormats } from '../../src/formats/detect.js';
import {
  callPython,
  closePythonWorker,
  killPythonWorker,
  pythonExecutable,
  pythonPoolSize,
  pythonWorkerPid,
  pythonWorkerPids,
} from '../../src/runtime/python-worker.js';
import { pythonScript } from '../../src/scorers/code/python.js';
import { CODE_DIR, scoreWith } from '../scorers/code/support.js';
import { isRunning, waitFor, waitUntilGone } from '../support/processes.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-python-worker-');
// The format registry hands the runner the formats' interpreter variables (promptfoo's
// PROMPTFOO_PYTHON), as every command and evaluate() do by loading it.
before(() => suiteFormats());
after(async () => {
  await closePythonWorker();
  tmp.cleanup();
});

/** Python that creates the file `name` in the temp folder (a sign that the call has started), then runs `rest`. */
const markThen = (name: string, rest: string): string =>
  `open(${JSON.stringify(join(tmp.dir, name))}, "w").close() or ${rest}`;

const inline = (code: string, args: unknown[]) =>
  callPython({ kind: 'inline', code: pythonScript(code), fn: 'main', header: 3, args });

/** Runs a test body with an environment variable set, restoring it afterwards. */
async function withEnv(name: string, value: string, body: () => Promise<void>): Promise<void> {
  const before = process.env[name];
  await closePythonWorker();
  process.env[name] = value;
  try {
    await body();
  } finally {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
    await closePythonWorker();
  }
}

describe('python worker', () => {
  it('answers 500 concurrent requests, each with its own result', async () => {
    const replies = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        inline("output * 2 if context['i'] % 2 else str(output)", [i, { i }]),
      ),
    );
    replies.forEach((reply, i) => {
      assert.deepEqual(reply, { ok: true, result: i % 2 ? i * 2 : String(i) });
    });
  });

  it('is a small pool for many assertions, started lazily: one process while calls come one at a time', async () => {
    await closePythonWorker();
    assert.equal(pythonWorkerPid(), undefined);
    await inline('1', ['x', {}]);
    const pid = pythonWorkerPid();
    assert.ok(pid);
    for (let i = 0; i < 5; i++) await inline('1', ['x', {}]);
    assert.deepEqual(pythonWorkerPids(), [pid]);
    await Promise.all(Array.from({ length: 50 }, () => inline('1', ['x', {}])));
    assert.equal(pythonWorkerPid(), pid);
    assert.ok(pythonWorkerPids().length <= pythonPoolSize());
  });

  it('a call that hangs holds one worker: the others are answered meanwhile; its abort frees the worker', async () => {
    const caller = new AbortController();
    const hung = callPython(
      { kind: 'inline', code: pythonScript('while True:\n    pass'), fn: 'main', header: 3, args: ['x', {}] },
      { signal: caller.signal },
    );
    const others = await Promise.all(Array.from({ length: 20 }, (_, i) => inline('output', [i, {}])));
    assert.deepEqual(
      others,
      Array.from({ length: 20 }, (_, i) => ({ ok: true, result: i })),
    );
    const before = pythonWorkerPids();
    caller.abort();
    const reply = await hung;
    assert.equal(reply.ok, false);
    assert.match(reply.ok ? '' : reply.error, /^cancelled: the caller stopped waiting/);
    const gone = before.filter((pid) => !pythonWorkerPids().includes(pid));
    assert.equal(gone.length, 1, 'exactly the hung worker left the pool');
    assert.ok(await waitUntilGone(gone[0] as number), 'the hung worker was killed');
    assert.deepEqual(await inline('output', ['after', {}]), { ok: true, result: 'after' });
  });

  it('a subprocess user code leaves running dies with its worker; closing the pool does not wait for it', async () => {
    await closePythonWorker();
    const pidFile = join(tmp.dir, 'daemon.pid');
    // The child inherits the worker's stderr (fd 1 and 2 of user code), as a daemon a provider starts would.
    const code = `import subprocess\nchild = subprocess.Popen(["sleep", "300"])\nopen(${JSON.stringify(pidFile)}, "w").write(str(child.pid))\nreturn output`;
    assert.deepEqual(await inline(code, ['started', {}]), { ok: true, result: 'started' });
    const child = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(isRunning(child));
    // Bounded: before the fix the close waited for the pipes the child holds, i.e. for ever.
    const bound = new AbortController();
    const closed = await Promise.race([
      closePythonWorker().then(() => 'closed'),
      delay(20_000, 'still waiting', { signal: bound.signal }).catch(() => 'still waiting'),
    ]);
    bound.abort();
    assert.equal(closed, 'closed');
    assert.ok(await waitUntilGone(child), 'the subprocess was killed with its worker');
  });

  it('a call given up while it waits on a subprocess: the subprocess is killed with the worker', async () => {
    const pidFile = join(tmp.dir, 'hung-child.pid');
    const caller = new AbortController();
    const code = `import subprocess\nchild = subprocess.Popen(["sleep", "300"])\nopen(${JSON.stringify(pidFile)}, "w").write(str(child.pid))\nchild.wait()\nreturn output`;
    const hung = callPython(
      { kind: 'inline', code: pythonScript(code), fn: 'main', header: 3, args: ['x', {}] },
      { signal: caller.signal },
    );
    const child = await waitFor(() => existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8')));
    assert.ok(child);
    caller.abort();
    assert.match((await hung).ok ? '' : 'cancelled', /cancelled/);
    assert.ok(await waitUntilGone(child), 'the subprocess was killed');
    assert.deepEqual(await inline('output', ['after', {}]), { ok: true, result: 'after' });
  });

  it('a call waiting for a free worker is dropped when its caller aborts', async () => {
    await withEnv('ASSAY_PYTHON_WORKERS', '1', async () => {
      const busy = inline('__import__("time").sleep(0.5) or output', ['busy', {}]);
      const caller = new AbortController();
      const waiting = callPython(
        { kind: 'inline', code: pythonScript('output'), fn: 'main', header: 3, args: ['late', {}] },
        { signal: caller.signal },
      );
      const pid = pythonWorkerPid();
      caller.abort();
      assert.match((await waiting).ok ? '' : 'cancelled', /cancelled/);
      assert.deepEqual(await busy, { ok: true, result: 'busy' });
      assert.equal(pythonWorkerPid(), pid, 'the busy worker was not touched');
    });
  });

  it('user code never reads the protocol: stdin is empty for it, and print() goes to stderr', async () => {
    const code = [
      'import sys',
      'print("noise on stdout")',
      'try:',
      '    line = input()',
      'except EOFError:',
      '    line = None',
      'return {"line": line, "rest": sys.stdin.read(), "got": output}',
    ].join('\n');
    const replies = await Promise.all(
      [1, 2, 3].map((i) =>
        callPython(
          { kind: 'inline', code: pythonScript(code), fn: 'main', header: 3, args: [i, {}] },
          { timeLimitMs: 10_000 },
        ),
      ),
    );
    assert.deepEqual(
      replies,
      [1, 2, 3].map((i) => ({ ok: true, result: { line: null, rest: '', got: i } })),
    );
  });

  it('restarts after the worker is killed', async () => {
    await inline('1', ['x', {}]);
    const pid = pythonWorkerPid();
    assert.ok(pid);
    process.kill(pid, 'SIGKILL');
    assert.ok(await waitUntilGone(pid));
    assert.deepEqual(await inline('output + 1', [1, {}]), { ok: true, result: 2 });
    const next = pythonWorkerPid();
    assert.ok(next && next !== pid);
  });

  it('re-sends the requests in flight when the worker is killed mid-run', async () => {
    await inline('1', ['x', {}]);
    const pid = pythonWorkerPid();
    assert.ok(pid);
    // The slow call waits (bounded) for a gate file the test makes only after the kill, so the
    // kill always meets it in flight, however slow the machine.
    const gate = join(tmp.dir, 'slow-gate');
    const waitGate = `([__import__("time").sleep(0.02) for _ in range(3000) if not __import__("os").path.exists(${JSON.stringify(gate)})], output)[1]`;
    const slow = inline(markThen('slow-started', waitGate), ['slow', {}]);
    const queued = Array.from({ length: 5 }, (_, i) => inline('output', [i, {}]));
    assert.ok(await waitFor(() => existsSync(join(tmp.dir, 'slow-started'))), 'the slow call started');
    process.kill(pid, 'SIGKILL');
    assert.ok(await waitUntilGone(pid), 'the worker was killed');
    writeFileSync(gate, '');
    assert.deepEqual(await slow, { ok: true, result: 'slow' });
    assert.deepEqual(
      await Promise.all(queued),
      [0, 1, 2, 3, 4].map((i) => ({ ok: true, result: i })),
    );
  });

  it('fails the assertion that brings the worker down, and only that one', async () => {
    const crash = callPython({ kind: 'file', path: `${CODE_DIR}/asserts.py`, fn: 'crash', args: ['x', {}] });
    const others = Array.from({ length: 3 }, (_, i) => inline('output', [i, {}]));
    const reply = await crash;
    assert.equal(reply.ok, false);
    assert.match(
      reply.ok ? '' : reply.error,
      /^the Python worker died while running this assertion \(exit code 7\)/,
    );
    assert.deepEqual(
      await Promise.all(others),
      [0, 1, 2].map((i) => ({ ok: true, result: i })),
    );
    // Through the scorer it is a failed verdict, as any Python error is.
    const o = await scoreWith([{ type: 'python', value: 'file://asserts.py:crash' }], 'x');
    assert.equal(o.status, 'fail');
    assert.match(o.reason, /^Error running Python script file:\/\/asserts\.py: the Python worker died/);
  });

  it('closePythonWorker() stops the process; the next assertion starts a new one', async () => {
    await inline('1', ['x', {}]);
    const pid = pythonWorkerPid();
    assert.ok(pid);
    await closePythonWorker();
    assert.equal(pythonWorkerPid(), undefined);
    assert.equal(isRunning(pid), false);
    await closePythonWorker();
    assert.deepEqual(await inline('2', ['x', {}]), { ok: true, result: 2 });
  });

  it('a missing interpreter is a job error that says Python is needed', async () => {
    await withEnv('ASSAY_PYTHON', '/nonexistent/python3', async () => {
      const o = await scoreWith([{ type: 'python', value: 'True' }], 'x');
      assert.equal(o.status, 'error');
      assert.equal(
        o.reason,
        'python: Python 3 is needed to run python assertions, but "/nonexistent/python3" was not found. Install Python 3, or set ASSAY_PYTHON (or PROMPTFOO_PYTHON) to its path.',
      );
    });
  });

  it('an interpreter that exits at once is a job error with its exit code', async () => {
    await withEnv('ASSAY_PYTHON', 'false', async () => {
      const o = await scoreWith([{ type: 'python', value: 'file://asserts.py' }], 'x');
      assert.equal(o.status, 'error');
      assert.match(
        o.reason,
        /^python: Python 3 is needed to run python assertions, but "false" exited before it was ready \(exit code 1\)/,
      );
    });
  });

  it('uses ASSAY_PYTHON, else PROMPTFOO_PYTHON, else python3', () => {
    assert.equal(pythonExecutable({}), 'python3');
    assert.equal(pythonExecutable({ PROMPTFOO_PYTHON: '/opt/py' }), '/opt/py');
    assert.equal(
      pythonExecutable({ PROMPTFOO_PYTHON: '/opt/py', ASSAY_PYTHON: '/usr/bin/python3.12' }),
      '/usr/bin/python3.12',
    );
  });

  it('names no format itself: the interpreter variables are a parameter', () => {
    assert.equal(pythonExecutable({ PROMPTFOO_PYTHON: '/opt/py' }, []), 'python3');
    assert.equal(pythonExecutable({ OTHER_PYTHON: '/opt/other' }, ['OTHER_PYTHON']), '/opt/other');
  });

  it('never keeps Node alive, and exits when Node does', () => {
    // A process that uses the worker and never closes it must still exit; the worker must follow.
    const moduleUrl = new URL('../../src/runtime/python-worker.js', import.meta.url).href;
    const sourceUrl = new URL('../../src/scorers/code/python.js', import.meta.url).href;
    const script = `
      const { callPython, pythonWorkerPid } = await import(${JSON.stringify(moduleUrl)});
      const { pythonScript } = await import(${JSON.stringify(sourceUrl)});
      const reply = await callPython({ kind: 'inline', code: pythonScript('output'), fn: 'main', header: 3, args: ['hi', {}] });
      console.log(JSON.stringify({ reply, pid: pythonWorkerPid() }));
    `;
    // A process held alive is killed by this bound (a signal, no exit status): how long a loaded
    // machine takes to start Node and Python is not the point.
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(child.status, 0, `${child.signal ?? ''} ${child.stderr}`);
    const { reply, pid } = JSON.parse(child.stdout) as { reply: unknown; pid: number };
    assert.deepEqual(reply, { ok: true, result: 'hi' });
    return waitUntilGone(pid).then((gone) => assert.ok(gone, `worker ${pid} outlived its parent`));
  });

  it('exits when Node dies even while user code is stuck in a loop', async () => {
    const moduleUrl = new URL('../../src/runtime/python-worker.js', import.meta.url).href;
    const sourceUrl = new URL('../../src/scorers/code/python.js', import.meta.url).href;
    const script = `
      const { callPython, pythonWorkerPid } = await import(${JSON.stringify(moduleUrl)});
      const { pythonScript } = await import(${JSON.stringify(sourceUrl)});
      await callPython({ kind: 'inline', code: pythonScript('1'), fn: 'main', header: 3, args: ['x', {}] });
      callPython({ kind: 'inline', code: pythonScript(${JSON.stringify(markThen('loop-started', 'any(iter(int, 1))'))}), fn: 'main', header: 3, args: ['x', {}] });
      // Node exits once the loop has started (its file is there), not after a guessed delay.
      const { existsSync } = await import('node:fs');
      while (!existsSync(${JSON.stringify(join(tmp.dir, 'loop-started'))})) await new Promise((r) => setTimeout(r, 20));
      console.log(pythonWorkerPid());
      process.exit(0);
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(child.status, 0, `${child.signal ?? ''} ${child.stderr}`);
    const pid = Number(child.stdout.trim());
    assert.ok(pid > 0);
    assert.ok(await waitUntilGone(pid), `worker ${pid} outlived its parent`);
  });

  it('a call that runs past its time limit fails naming the limit; the worker is restarted for the rest', async () => {
    await inline('1', ['x', {}]);
    const pid = pythonWorkerPid()!;
    const stuck = callPython(
      {
        kind: 'inline',
        code: pythonScript('__import__("time").sleep(1000)'),
        fn: 'main',
        header: 3,
        args: ['x', {}],
      },
      { timeLimitMs: 1500 },
    );
    // Queued behind the stuck call: its own limit, shorter than its wait (the stuck call's 1.5 s),
    // only counts once it runs, and it is not blamed. (1 s is ample for `output * 2` on a loaded
    // machine; 300 ms, as before, was not a margin to count on.)
    const next = callPython(
      { kind: 'inline', code: pythonScript('output * 2'), fn: 'main', header: 3, args: [21, {}] },
      { timeLimitMs: 1000 },
    );
    const reply = await stuck;
    assert.equal(reply.ok, false);
    assert.match(reply.ok ? '' : reply.error, /did not return within 1500 ms/);
    assert.deepEqual(await next, { ok: true, result: 42 });
    assert.ok(await waitUntilGone(pid), 'the stuck worker was killed');
    assert.notEqual(pythonWorkerPid(), pid);
  });

  it('killPythonWorker() ends the calls waiting on a stuck worker at once', async () => {
    const stuck = inline(markThen('stuck-started', '__import__("time").sleep(1000)'), ['x', {}]);
    assert.ok(await waitFor(() => existsSync(join(tmp.dir, 'stuck-started'))), 'the stuck call started');
    const pid = pythonWorkerPid()!;
    killPythonWorker();
    const reply = await stuck;
    assert.equal(reply.ok, false);
    assert.match(reply.ok ? '' : reply.error, /stopped/);
    assert.ok(await waitUntilGone(pid));
  });
});
