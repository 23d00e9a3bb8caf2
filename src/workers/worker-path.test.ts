import { describe, expect, it } from "vitest";
import { OptionError } from "../errors/errors.js";
import { defaultTaskModuleUrl, moduleHref, workerEntryUrl, workerExecArgv } from "./worker-path.js";

describe("worker paths", () => {
  it("resolves the entry and the default task module next to this module, with its extension", () => {
    // Running from sources here; from dist/ the same calls give dist/workers/*.js.
    expect(workerEntryUrl().href).toBe(new URL("./worker-entry.ts", import.meta.url).href);
    expect(defaultTaskModuleUrl()).toBe(new URL("./run-task.ts", import.meta.url).href);
  });

  it("preloads tsx only when a module is TypeScript", () => {
    expect(workerExecArgv(["file:///app/dist/workers/worker-entry.js", "file:///app/dist/workers/run-task.js"])).toBeUndefined();
    const argv = workerExecArgv(["file:///app/dist/workers/worker-entry.js", "file:///app/src/my-task.ts"])!;
    expect(argv[0]).toBe("--import");
    const source = decodeURIComponent(argv[1]!.slice("data:text/javascript,".length));
    expect(source).toMatch(/^import \{ register \} from "file:\/\/\/.*\/tsx\/dist\/esm\/api\/index\.mjs"; register\(\);$/);
  });

  it("accepts file URLs, URL objects and absolute paths for task modules", () => {
    expect(moduleHref("/srv/app/task.js")).toBe("file:///srv/app/task.js");
    expect(moduleHref(new URL("file:///srv/app/task.js"))).toBe("file:///srv/app/task.js");
    expect(moduleHref("file:///srv/app/task.js")).toBe("file:///srv/app/task.js");
    expect(() => moduleHref("./task.js")).toThrow(OptionError);
  });
});
