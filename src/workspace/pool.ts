import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Arm } from '../run/config-schema.js';
import type { Skill } from '../load/skills.js';
import { markKept } from './owner.js';
import { createSealedWorkspace, type SealedWorkspace } from './sealed.js';

/**
 * Keeps the next sealed workspace of each arm ready while the current trial runs, and removes used ones in the
 * background, so making and deleting workspaces stays off the trial's critical path. `drain` removes everything
 * left, including prepared workspaces that were never used.
 */
export class WorkspacePool {
  /** The folder workspaces are created in: `root`, else the system temp folder. */
  readonly base: string;
  private readonly ready = new Map<Arm, Promise<SealedWorkspace>[]>();
  private readonly cleanups = new Set<Promise<void>>();
  /** Roots on disk that are still the pool's to remove. */
  private readonly live = new Set<string>();

  constructor(
    private readonly opts: { root?: string; skills: Skill[]; neighbours?: Skill[]; skillsFolder: string; keep: boolean; prefetch: number },
  ) {
    this.base = opts.root ?? tmpdir();
  }

  private create(arm: Arm): Promise<SealedWorkspace> {
    const p = createSealedWorkspace({
      root: this.base,
      skills: arm === 'skill' ? this.opts.skills : [],
      // The ablation arm removes the family only: the user's other skills stay offered.
      neighbours: this.opts.neighbours ?? [],
      skillsFolder: this.opts.skillsFolder,
    });
    p.then(
      (ws) => this.live.add(ws.root),
      () => {}, // surfaced when taken
    );
    return p;
  }

  async take(arm: Arm): Promise<SealedWorkspace> {
    const queue = this.ready.get(arm) ?? [];
    this.ready.set(arm, queue);
    const next = queue.shift() ?? this.create(arm);
    while (queue.length < this.opts.prefetch) queue.push(this.create(arm));
    return next;
  }

  /** Hands a used workspace back: removed in the background, or with `keep` handed over to the user. */
  release(ws: SealedWorkspace): void {
    if (this.opts.keep) {
      markKept(ws.root);
      this.live.delete(ws.root);
      return;
    }
    this.remove(ws);
  }

  private remove(ws: SealedWorkspace): Promise<void> {
    const p = ws.cleanup().then(
      () => void this.live.delete(ws.root),
      () => {},
    );
    this.cleanups.add(p);
    void p.finally(() => this.cleanups.delete(p));
    return p;
  }

  async drain(): Promise<void> {
    const prepared = [...this.ready.values()].flat();
    this.ready.clear();
    for (const p of prepared) {
      const ws = await p.catch(() => undefined);
      if (ws) await this.remove(ws);
    }
    await Promise.all(this.cleanups);
  }

  /**
   * For a process about to exit (a forced stop), which cannot wait: removes at once every workspace it knows of,
   * in use or prepared. One still being made is left to the watchdog.
   */
  removeAllSync(): void {
    for (const root of this.live) {
      try {
        rmSync(root, { recursive: true, force: true, maxRetries: 2 });
      } catch {
        /* left to the watchdog and the next start's sweep */
      }
    }
    this.live.clear();
  }
}
