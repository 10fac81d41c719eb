// Compatibility modes as the best-known schema registries name them, and which directions and
// versions each one checks. BACKWARD: the proposed schema reads data written with the previous
// one; FORWARD: the previous schema reads data written with the proposed one; FULL: both;
// *_TRANSITIVE: against every previous version instead of the latest; NONE: nothing is checked.

export const COMPATIBILITY_MODES = ['BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE', 'NONE'] as const;
export type CompatibilityMode = (typeof COMPATIBILITY_MODES)[number];

/** `backward`: the proposed schema is the reader; `forward`: the previous one is. */
export type Direction = 'backward' | 'forward';

export interface ModePlan {
  directions: readonly Direction[];
  /** Every previous version, or only the latest. */
  transitive: boolean;
}

const PLANS: Record<CompatibilityMode, ModePlan> = {
  BACKWARD: { directions: ['backward'], transitive: false },
  BACKWARD_TRANSITIVE: { directions: ['backward'], transitive: true },
  FORWARD: { directions: ['forward'], transitive: false },
  FORWARD_TRANSITIVE: { directions: ['forward'], transitive: true },
  FULL: { directions: ['backward', 'forward'], transitive: false },
  FULL_TRANSITIVE: { directions: ['backward', 'forward'], transitive: true },
  NONE: { directions: [], transitive: false },
};

export function modePlan(mode: CompatibilityMode): ModePlan {
  return PLANS[mode];
}

export function isCompatibilityMode(value: unknown): value is CompatibilityMode {
  return typeof value === 'string' && (COMPATIBILITY_MODES as readonly string[]).includes(value);
}
