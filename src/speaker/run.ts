import pino from 'pino';
import { ConfigError, ConfigStore, reloadOnSighup } from '../config/index.js';
import type { NotifyEnv } from '../service/index.js';
import { SpeakerDefaults } from './constants.js';
import { reloadStatus, runningStatus, serviceNotifier } from './service-status.js';
import { Speaker } from './speaker.js';
import { warmUp } from './warm-up.js';

/** Exit statuses of `ovn-bgp-speaker run`. */
export const RunStatus = { OK: 0, FAILED: 1 } as const;

/** Where the process gets its signals; `process` by default (tests pass an emitter). */
export interface ProcessSignals {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
  off(signal: NodeJS.Signals, listener: () => void): unknown;
}

export interface RunOptions {
  /** Where problems go before the logger exists (an unusable configuration). */
  readonly stderr?: (line: string) => void;
  /** Log destination; default stdout (pino JSON, one object per line). */
  readonly logDestination?: pino.DestinationStream;
  readonly signals?: ProcessSignals;
  /** Called once the speaker runs (tests wait for it). */
  readonly onStarted?: (speaker: Speaker) => void;
  /** Where NOTIFY_SOCKET and WATCHDOG_USEC come from; default process.env. */
  readonly env?: NotifyEnv;
}

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
/** The stop signal that means "restart" when graceful restart is on (see runSpeaker). */
const RESTART_SIGNAL: NodeJS.Signals = 'SIGTERM';

/**
 * `ovn-bgp-speaker run --config FILE`: the process lifecycle. Loads the file (an unusable one
 * is reported and the status is 1), logs pino JSON to stdout, reloads on SIGHUP (a bad file
 * keeps the running configuration), and on SIGTERM or SIGINT sends every peer a Cease
 * (Administrative Shutdown), removes the control socket and resolves with the exit status.
 *
 * Under systemd (NOTIFY_SOCKET set, Type=notify) it says READY=1 once the BGP listener and
 * the control socket are up, RELOADING=1 and READY=1 around each reload, STOPPING=1 when it
 * stops, STATUS= lines on the way, and WATCHDOG=1 at half WATCHDOG_USEC while the loop turns.
 *
 * With speaker.graceful_restart enabled, SIGTERM (what systemd and Kubernetes send before a
 * restart or an upgrade) stops for a restart instead: no Cease, so the peers keep our routes
 * (RFC 4724) and the kernel sink with on_stop keep keeps forwarding. SIGINT always shuts down
 * for good.
 *
 * Unless speaker.warm_up is false, a synthetic table goes through the receive path as it
 * starts (warm-up.ts), so the first peer's full table is not handled by cold code.
 */
export async function runSpeaker(file: string, options: RunOptions = {}): Promise<number> {
  const stderr = options.stderr ?? ((line: string) => process.stderr.write(`${line}\n`));
  const signals: ProcessSignals = options.signals ?? process;
  let store: ConfigStore;
  try {
    store = ConfigStore.open(file);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    for (const line of e.message.split('\n')) stderr(line);
    return RunStatus.FAILED;
  }
  const config = store.config;
  const logger = pino(
    { level: config.speaker.log.level, base: { speaker: config.speaker.name } },
    options.logDestination ?? pino.destination({ dest: 1, sync: true }),
  );
  for (const w of store.warnings) logger.warn({ file }, `configuration warning: ${w.path} ${w.message}`);
  const notify = serviceNotifier(options.env ?? process.env, process.pid, logger);
  notify?.status('starting');

  let speaker: Speaker;
  try {
    speaker = await Speaker.start(config, {
      logger,
      setLogLevel: (level) => {
        logger.level = level;
      },
      peerEdits: (edit) => store.editPeer(edit),
    });
  } catch (e) {
    logger.fatal({ error: (e as Error).message }, 'the speaker could not start');
    stderr(`ovn-bgp-speaker: ${(e as Error).message}`);
    notify?.status(`could not start: ${(e as Error).message}`);
    notify?.close();
    return RunStatus.FAILED;
  }
  // After the speaker's own objects exist (their shapes are what the warmed code is compiled
  // for; warmed first, the code was thrown away as they appeared). It runs in one turn: no
  // connection is served meanwhile, so no peer's table can arrive while it runs.
  if (config.speaker.warmUp !== false) {
    const w = warmUp();
    logger.debug({ prefixes: w.prefixes, rounds: w.rounds, ms: Math.round(w.ms) }, 'receive path warmed up');
  }
  options.onStarted?.(speaker);
  // Start-up is over: the BGP listener and the control socket are up.
  notify?.ready(runningStatus(speaker.summary()));
  notify?.startWatchdog();
  const statusTimer = setInterval(
    () => notify?.status(runningStatus(speaker.summary())),
    SpeakerDefaults.STATUS_INTERVAL_MS,
  ).unref();

  const stopReload = reloadOnSighup(
    store,
    (outcome) => {
      logger.info({ file }, 'SIGHUP: reloading the configuration');
      notify?.reloading(`reloading ${file}`);
      void speaker
        .reload(outcome)
        .then(() => notify?.ready(reloadStatus(outcome, runningStatus(speaker.summary()))));
    },
    signals,
  );

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        // A second signal: the operator does not want to wait.
        logger.warn({ signal }, 'second stop signal: exiting without waiting');
        resolve(RunStatus.FAILED);
        return;
      }
      stopping = true;
      const forRestart = signal === RESTART_SIGNAL && speaker.config.speaker.gracefulRestart.enabled;
      logger.info(
        { signal },
        forRestart
          ? 'stopping for a restart: no Cease, peers keep our routes (graceful restart)'
          : 'stopping: sending Cease to every peer',
      );
      stopReload();
      clearInterval(statusTimer);
      notify?.stopping(
        forRestart ? 'stopping for a restart (graceful restart)' : 'stopping: Cease to every peer',
      );
      const bound = new Promise<'timeout'>((done) =>
        setTimeout(() => done('timeout'), SpeakerDefaults.SHUTDOWN_TIMEOUT_MS).unref(),
      );
      void Promise.race([speaker.close(SpeakerDefaults.SHUTDOWN_MESSAGE, { forRestart }), bound]).then(
        (r) => {
          for (const [s, l] of listeners) signals.off(s, l);
          notify?.close();
          if (r === 'timeout') logger.warn({}, 'sessions did not all close in time');
          resolve(r === 'timeout' ? RunStatus.FAILED : RunStatus.OK);
        },
      );
    };
    const listeners = STOP_SIGNALS.map((s) => [s, () => stop(s)] as const);
    for (const [s, l] of listeners) signals.on(s, l);
  });
}
