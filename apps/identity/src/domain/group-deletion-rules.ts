export type GroupDeletionDecision =
  | { kind: 'delete' }
  | { kind: 'mark' }
  | { kind: 'refuse'; message: string };

/**
 * What DELETE /groups/:id does (GitLab 18, every tier): mark the group for deletion; a group marked itself is removed
 * at once only with `permanently_remove` and its exact (renamed) full path; marking twice is refused. The messages are
 * GitLab's (Namespaces::MarkForDeletionBaseService, the groups API's immediate-deletion checks). Who may ask at all
 * (`remove_group`: Owners, administrators) is group-policy's `canAdminGroup`, checked before.
 */
export function decideGroupDeletion(
  g: { marked: boolean; fullPath: string },
  req: { permanentlyRemove: boolean; fullPath: string },
): GroupDeletionDecision {
  if (req.permanentlyRemove) {
    if (!g.marked) return { kind: 'refuse', message: 'Group must be marked for deletion first.' };
    if (req.fullPath !== g.fullPath) return { kind: 'refuse', message: '`full_path` is incorrect. You must enter the complete path for the group.' };
    return { kind: 'delete' };
  }
  if (g.marked) return { kind: 'refuse', message: 'Group has been already marked for deletion' };
  return { kind: 'mark' };
}

/** POST /groups/:id/restore: only a group marked itself (Namespaces::RestoreBaseService); the refusal's message, if any. */
export function restoreRefusal(g: { marked: boolean }): string | undefined {
  return g.marked ? undefined : 'Group has not been marked for deletion';
}
