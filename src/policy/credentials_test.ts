import { assertEquals } from "../../testing/assert.ts";
import { ACCESS_FS } from "../os/landlock.ts";
import { credentialPaths, homeDirectories, readRulesExcept, type WalkIo } from "./credentials.ts";

/** A file system of directories (names ending in "/") and files, with symlinks as `name -> target`. */
function fakeFs(tree: Record<string, string[]>, links: Record<string, string> = {}): WalkIo {
  return {
    list: (dir) => {
      const entries = tree[dir];
      if (!entries) throw new Error(`ENOENT ${dir}`);
      return entries.map((entry) => {
        const name = entry.replace(/\/$/, "");
        const full = dir === "/" ? `/${name}` : `${dir}/${name}`;
        const target = links[full];
        return {
          name,
          isSymlink: target !== undefined,
          isDirectory: target !== undefined ? target in tree : entry.endsWith("/"),
        };
      });
    },
    realPath: (p) => {
      if (links[p]) return links[p];
      const parent = p.slice(0, p.lastIndexOf("/")) || "/";
      const name = p.slice(p.lastIndexOf("/") + 1);
      if (p !== "/" && !(tree[parent] ?? []).some((entry) => entry.replace(/\/$/, "") === name)) {
        throw new Error(`ENOENT ${p}`);
      }
      return p;
    },
  };
}

const READ_DIR = ACCESS_FS.READ_FILE | ACCESS_FS.READ_DIR;

Deno.test("readRulesExcept: grants every sibling on the way to a store, never the store, never an ancestor", () => {
  const io = fakeFs({
    "/": ["usr/", "home/", "etc/"],
    "/home": ["u/", "v/"],
    "/home/u": [".ssh/", ".bashrc", ".config/", "src/"],
    "/home/u/.config": ["gh/", "git/"],
  });
  const rules = readRulesExcept(["/home/u/.ssh", "/home/u/.config/gh"], io);
  const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
  assertEquals([...rules].sort(byPath), [
    { path: "/etc", access: READ_DIR },
    { path: "/home/u/.bashrc", access: ACCESS_FS.READ_FILE },
    { path: "/home/u/.config/git", access: READ_DIR },
    { path: "/home/u/src", access: READ_DIR },
    { path: "/home/v", access: READ_DIR },
    { path: "/usr", access: READ_DIR },
  ]);
  const granted = rules.map((rule) => rule.path);
  for (const never of ["/", "/home", "/home/u", "/home/u/.ssh", "/home/u/.config", "/home/u/.config/gh"]) {
    assertEquals(granted.includes(never), false, never);
  }
});

Deno.test("readRulesExcept: a symlink leading to a store, into one or above one gets no rule; elsewhere it does", () => {
  const io = fakeFs(
    {
      "/": ["home/", "mnt/", "opt/"],
      "/home": ["u/"],
      "/home/u": [".ssh", "keys", "up", "tools"],
      "/mnt": ["secrets/"],
      "/mnt/secrets": ["ssh/"],
      "/opt": ["bin/"],
    },
    {
      "/home/u/.ssh": "/mnt/secrets/ssh",
      "/home/u/keys": "/mnt/secrets/ssh",
      "/home/u/up": "/home/u",
      "/home/u/tools": "/opt/bin",
    },
  );
  const granted = readRulesExcept(["/home/u/.ssh"], io).map((rule) => rule.path);
  // .ssh is a symlink to /mnt/secrets/ssh: that is denied too, so /mnt is walked, not granted whole.
  assertEquals(granted.sort(), ["/home/u/tools", "/opt"]);
});

Deno.test("credentialPaths and homeDirectories: every store of every absolute home, once", () => {
  assertEquals(homeDirectories({ HOME: "/root" }, "/root"), ["/root"]);
  assertEquals(homeDirectories({ HOME: "relative" }, "/home/u"), ["/home/u"]);
  const paths = credentialPaths(["/home/u", "/root"]);
  assertEquals(paths.includes("/home/u/.ssh") && paths.includes("/root/.docker/config.json"), true);
  assertEquals(new Set(paths).size, paths.length);
});
