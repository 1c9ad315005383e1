/**
 * How podconfig logs a streak of failures of one thing (a watch, a pod's handler calls), as the kubelet's http
 * source does: the first {@link WARN_FAILURES} at warn, later ones at debug until a success, but one at warn again
 * every {@link WARN_REMINDER_MS}, so that an outage of hours stays visible at the default level without a line per
 * retry. Shared so that every part of the agent reminds the operator on the same beat.
 */
export const WARN_FAILURES = 3;

/** In a longer streak, a failure is warned about again once this long has passed since the last warning. */
export const WARN_REMINDER_MS = 5 * 60_000;
