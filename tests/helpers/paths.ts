/**
 * Absolute paths the tests share, so that a test file reads the same data
 * wherever it sits under `tests/`: the checkout's root, and the reference
 * deals and verdicts copied into `tests/fixtures/data/` (where they came from
 * and how they were checked: `tests/fixtures/data/README.md`).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root folder (absolute, no trailing slash). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

/** `tests/fixtures/data/deals/`: one JSON object a line, `{game, deal, numbering, board}`. */
export const REFERENCE_DEALS = join(ROOT, 'tests', 'fixtures', 'data', 'deals');

/** `tests/fixtures/data/verdicts/`: `deal<TAB>verdict` rows, one file a game. */
export const REFERENCE_VERDICTS = join(ROOT, 'tests', 'fixtures', 'data', 'verdicts');
