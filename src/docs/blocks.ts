/** Which generated block lives in which doc: tasks/docs.ts writes them, tests/docs_test.ts checks them live. */
import type { Tool } from "../sdk/mod.ts";
import { renderErrorCodes, renderInventory, renderToolReference } from "./render.ts";
import { renderLimits } from "./limits.ts";
import { renderEnvRules, renderModes, renderRules } from "./modes.ts";

/** Every generated block in docs/: its file (relative to the repository root), its name, and how it is rendered. */
export const DOC_BLOCKS: readonly { file: string; name: string; render(tools: readonly Tool[]): string }[] = [
  { file: "docs/tools-and-schemas.md", name: "inventory", render: renderInventory },
  { file: "docs/runtime-contract.md", name: "tools", render: renderToolReference },
  { file: "docs/runtime-contract.md", name: "errors", render: renderErrorCodes },
  { file: "docs/runtime-contract.md", name: "limits", render: renderLimits },
  { file: "docs/runtime-contract.md", name: "modes", render: renderModes },
  { file: "docs/permission-modes.md", name: "rules", render: renderRules },
  { file: "docs/permission-modes.md", name: "modes", render: renderModes },
  { file: "docs/permission-modes.md", name: "env", render: renderEnvRules },
];
