/**
 * Reads a V8 CPU profile (what `node --cpu-prof` writes) into the two views a profile of a bench
 * job is read by: where the time is spent (self time per function) and what each stage of the
 * query costs (inclusive time of the functions that stand for the stages).
 */

/** The parts of a `.cpuprofile` file this module reads (Chrome DevTools protocol, Profiler.Profile). */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string };
    readonly children?: readonly number[];
  }[];
  readonly samples: readonly number[];
  /** Microseconds since the previous sample; `timeDeltas[i]` goes with `samples[i]`. */
  readonly timeDeltas: readonly number[];
}

export interface SelfTime {
  /**
   * `function file`, the file relative to the root given (`nm/` for node_modules). No line: a
   * function's self time is summed over every line its samples hit.
   */
  readonly frame: string;
  readonly seconds: number;
  /** Of the profile's busy time (its idle samples left out). */
  readonly share: number;
}

export interface StageTime {
  readonly stage: string;
  readonly functionName: string;
  /** Samples with this function anywhere on their stack (a recursive call counted once). */
  readonly seconds: number;
  readonly share: number;
}

export interface ProfileSummary {
  readonly totalSeconds: number;
  readonly idleSeconds: number;
  readonly busySeconds: number;
  readonly top: readonly SelfTime[];
  readonly stages: readonly StageTime[];
}

const IDLE = "(idle)";

function frameName(frame: CpuProfile["nodes"][number]["callFrame"], root: string): string {
  const file = frame.url.startsWith("file://") ? frame.url.slice("file://".length) : frame.url;
  const short = file.includes("/node_modules/") ? `nm/${file.slice(file.lastIndexOf("/node_modules/") + "/node_modules/".length)}` : file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file;
  return short === "" ? frame.functionName || "(anonymous)" : `${frame.functionName || "(anonymous)"} ${short}`;
}

/**
 * Self time per frame (the `top` largest) and the inclusive time of each stage, named by the
 * function that does it (`stages`: stage name -> function name; a function not in the profile
 * gets 0). `root` is cut from file paths.
 */
export function summarizeProfile(profile: CpuProfile, o: { readonly top: number; readonly stages: readonly (readonly [string, string])[]; readonly root: string }): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const microsByNode = new Map<number, number>();
  profile.samples.forEach((id, i) => microsByNode.set(id, (microsByNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  const selfByFrame = new Map<string, number>();
  const stageFunctions = new Set(o.stages.map(([, fn]) => fn));
  const inclusiveByFunction = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, micros] of microsByNode) {
    const node = byId.get(id)!;
    total += micros;
    if (node.callFrame.functionName === IDLE) {
      idle += micros;
      continue;
    }
    const frame = frameName(node.callFrame, o.root);
    selfByFrame.set(frame, (selfByFrame.get(frame) ?? 0) + micros);
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const fn = byId.get(at)!.callFrame.functionName;
      if (stageFunctions.has(fn)) onStack.add(fn);
    }
    for (const fn of onStack) inclusiveByFunction.set(fn, (inclusiveByFunction.get(fn) ?? 0) + micros);
  }
  const busy = total - idle;
  const share = (micros: number) => (busy > 0 ? micros / busy : 0);
  return {
    totalSeconds: total / 1e6,
    idleSeconds: idle / 1e6,
    busySeconds: busy / 1e6,
    top: [...selfByFrame]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, o.top)
      .map(([frame, micros]) => ({ frame, seconds: micros / 1e6, share: share(micros) })),
    stages: o.stages.map(([stage, functionName]) => {
      const micros = inclusiveByFunction.get(functionName) ?? 0;
      return { stage, functionName, seconds: micros / 1e6, share: share(micros) };
    }),
  };
}
