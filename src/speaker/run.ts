import pino from 'pino';
import { ConfigError, ConfigStore, reloadOnSighup } from '../config/index.js';
import { SpeakerDefaults } from './constants.js';
import { Speaker } from './speaker.js';

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
 * With speaker.graceful_restart enabled, SIGTERM (what systemd and Kubernetes send before a
 * restart or an upgrade) stops for a restart instead: no Cease, so the peers keep our routes
 * (RFC 4724) and the kernel sink with on_stop keep keeps forwarding. SIGINT always shuts down
 * for good.
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
    return RunStatus.FAILED;
  }
  options.onStarted?.(speaker);

  const stopReload = reloadOnSighup(
    store,
    (outcome) => {
      logger.info({ file }, 'SIGHUP: reloading the configuration');
      void speaker.reload(outcome);
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
      const bound = new Promise<'timeout'>((done) =>
        setTimeout(() => done('timeout'), SpeakerDefaults.SHUTDOWN_TIMEOUT_MS).unref(),
      );
      void Promise.race([speaker.close(SpeakerDefaults.SHUTDOWN_MESSAGE, { forRestart }), bound]).then(
        (r) => {
          for (const [s, l] of listeners) signals.off(s, l);
          if (r === 'timeout') logger.warn({}, 'sessions did not all close in time');
          resolve(r === 'timeout' ? RunStatus.FAILED : RunStatus.OK);
        },
      );
    };
    const listeners = STOP_SIGNALS.map((s) => [s, () => stop(s)] as const);
    for (const [s, l] of listeners) signals.on(s, l);
  });
}
