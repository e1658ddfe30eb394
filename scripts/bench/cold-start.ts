import { freePort, removeDir, startAppServer, tempDataDir } from './processes.ts'

/** Milliseconds from launching `npm start`'s command to the first 200 of `/api/health`. */
export type ColdStart = { freshDataDirMs: number; existingDataDirMs: number }

/**
 * Starts the real server (`tsx scripts/start.ts`, dist/ already built) twice: on a new DATA_DIR,
 * which PGlite initialises, migrates and the seed fills; then again on that same folder.
 */
export async function benchColdStart(): Promise<ColdStart> {
  const dataDir = tempDataDir('cold')
  try {
    const first = await startAppServer({ port: await freePort(), dataDir })
    await first.stop()
    const second = await startAppServer({ port: await freePort(), dataDir })
    await second.stop()
    return { freshDataDirMs: first.readyMs, existingDataDirMs: second.readyMs }
  } finally {
    removeDir(dataDir)
  }
}
