import type { RunResult } from './run';

/**
 * The messages of the hints a node showed after a run (n8n's notices above its output), which is
 * where the engine reports repeats sent once, reused answers and credits.
 */
export const hintsOf = (run: Pick<RunResult, 'run'>, node = 'Node', runIndex = 0): string[] =>
	(run.run.data.resultData.runData[node]?.[runIndex]?.hints ?? []).map((hint) => hint.message);
