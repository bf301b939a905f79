/**
 * The engine's exports. Only numbers and addresses cross the boundary
 * (design.md): the glue writes the rules and the start position into the
 * input block, calls `solve`, and reads the solution from the output buffer.
 */
export { solve, setHeuristicWeights, lastStopReason, statesStored, memoryBytesUsed, INPUT_BYTES } from './search';
import { INPUT, statesExpanded } from './search';
import { OUTPUT, outputCount } from './output';

/** Address of the input block (search.ts documents its layout). */
export function inputAddress(): usize {
  return INPUT;
}

/** Address of the solution buffer (output.ts documents its layout). */
export function outputAddress(): usize {
  return OUTPUT;
}

/** Moves in the solution buffer. */
export function outputMoveCount(): i32 {
  return outputCount;
}

/** Positions expanded by the last solve. */
export function expandedCount(): u32 {
  return statesExpanded;
}
