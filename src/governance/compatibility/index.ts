// Public API of the schema-compatibility checker: pure functions, no I/O.

export { checkCompatibility } from './check-compatibility.ts';
export type { BreakingChange, CompatibilityRequest, CompatibilityResult, SchemaVersion } from './check-compatibility.ts';
export { COMPATIBILITY_MODES, isCompatibilityMode, modePlan } from './modes.ts';
export type { CompatibilityMode, Direction, ModePlan } from './modes.ts';
export { findNarrowings } from './schema-narrowings.ts';
export type { Narrowing, NarrowingKind, NarrowingOptions } from './schema-narrowings.ts';
