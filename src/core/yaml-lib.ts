// The `yaml` package, loaded on first use rather than at start-up (73 files: `--version`, `--help`
// and suites that hold no YAML never load it). Node resolves `yaml` to the same CommonJS build for
// `import` and `require`, so the module returned here is the very one a static import would give.
import { createRequire } from 'node:module';

type YamlLib = typeof import('yaml');

let lib: YamlLib | undefined;

/** The `yaml` package (loaded by the first call). */
export function yamlLib(): YamlLib {
  lib ??= createRequire(import.meta.url)('yaml') as YamlLib;
  return lib;
}
