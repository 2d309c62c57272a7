import type { Arm } from '../run/config-schema.js';
import type { Skill } from '../load/skills.js';
import { createSealedWorkspace, type SealedWorkspace } from './sealed.js';

/**
 * Keeps the next sealed workspace of each arm ready while the current trial runs, and removes used ones in the
 * background, so making and deleting workspaces stays off the trial's critical path. `drain` removes everything
 * left, including prepared workspaces that were never used.
 */
export class WorkspacePool {
  private readonly ready = new Map<Arm, Promise<SealedWorkspace>[]>();
  private readonly cleanups = new Set<Promise<void>>();

  constructor(
    private readonly opts: { root?: string; skills: Skill[]; skillsFolder: string; keep: boolean; prefetch: number },
  ) {}

  private create(arm: Arm): Promise<SealedWorkspace> {
    const p = createSealedWorkspace({ root: this.opts.root, skills: arm === 'skill' ? this.opts.skills : [], skillsFolder: this.opts.skillsFolder });
    p.catch(() => {}); // surfaced when taken
    return p;
  }

  async take(arm: Arm): Promise<SealedWorkspace> {
    const queue = this.ready.get(arm) ?? [];
    this.ready.set(arm, queue);
    const next = queue.shift() ?? this.create(arm);
    while (queue.length < this.opts.prefetch) queue.push(this.create(arm));
    return next;
  }

  /** Hands a used workspace back: removed in the background unless workspaces are kept. */
  release(ws: SealedWorkspace): void {
    if (this.opts.keep) return;
    const p = ws.cleanup().catch(() => {});
    this.cleanups.add(p);
    void p.finally(() => this.cleanups.delete(p));
  }

  async drain(): Promise<void> {
    const prepared = [...this.ready.values()].flat();
    this.ready.clear();
    for (const p of prepared) {
      const ws = await p.catch(() => undefined);
      if (ws) await ws.cleanup().catch(() => {});
    }
    await Promise.all(this.cleanups);
  }
}
