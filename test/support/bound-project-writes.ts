/**
 * A lease scope with one project write bound (ADR 0074), as an approval that named the write
 * would have made it: for tests that open leases through the keeper's seam rather than the page.
 */
import {
  type BoundProjectWrite,
  boundProjectWriteSchema,
  type LeaseScope,
  projectWriteKey,
} from "@t3-connector/write-engine/actions";

/**
 * The scope with `input`'s project write bound in `environmentId`'s grant: a create's folder
 * taken as existing, a move as named; a forced delete with the thread count the page would have named.
 */
export function bindProjectWrite(
  scope: LeaseScope,
  environmentId: string,
  action: string,
  input: unknown,
  threadCount = 0,
): LeaseScope {
  const key = projectWriteKey(action, input);
  if (key === null) return scope;
  const bound: BoundProjectWrite = boundProjectWriteSchema.parse(
    key.action === "project.create"
      ? { ...key, wouldCreate: false }
      : key.action === "project.delete"
        ? { ...key, threadCount }
        : key,
  );
  return {
    ...scope,
    environments: scope.environments.map((grant) =>
      grant.environmentId === environmentId
        ? { ...grant, projectWrites: [...(grant.projectWrites ?? []), bound] }
        : grant,
    ),
  };
}
