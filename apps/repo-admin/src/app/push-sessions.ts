import { randomBytes } from 'node:crypto';
import type { Actor } from '@glp/service-kit';
import type { GitService } from '../domain/git-http-rules';

/** A receive-pack run in progress: what its hooks' calls are about. */
export interface PushSession {
  id: string;
  projectId: number;
  actor: Actor;
  service: GitService;
  repoDir: string;
  /** The push's intent (app/push-intents.ts), once pre-receive allowed it. */
  intent?: string;
}

/**
 * The pushes running in this process, by a random id given to receive-pack's hooks (GLP_PUSH_ID): a hook's call names
 * its push, and only a push that is running can be named. Ids are 128 random bits, never reused.
 */
export class PushSessions {
  private readonly running = new Map<string, PushSession>();

  open(s: Omit<PushSession, 'id'>): PushSession {
    const session = { ...s, id: randomBytes(16).toString('hex') };
    this.running.set(session.id, session);
    return session;
  }

  get(id: string | undefined): PushSession | undefined {
    return id ? this.running.get(id) : undefined;
  }

  close(id: string): void {
    this.running.delete(id);
  }

  get size(): number {
    return this.running.size;
  }
}
