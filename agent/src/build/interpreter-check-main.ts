/**
 * Bundled by the bundle test as the agent is bundled: runs one health script and prints the
 * verdict, which proves that the resource interpreter's Lua VM loads from a bundle.
 */
import { createResourceInterpreter } from '@kf/interpreter';

const target = { apiVersion: 'example.com/v1', kind: 'Widget' };
const interpreter = await createResourceInterpreter([
  {
    metadata: { name: 'widgets' },
    spec: {
      target,
      customizations: {
        healthInterpretation: {
          luaScript: 'function InterpretHealth(o) return o.status.ready == o.spec.size end',
        },
      },
    },
  },
]);
console.log(
  JSON.stringify({
    healthy: interpreter.interpretHealth({ ...target, spec: { size: 2 }, status: { ready: 2 } }),
    unhealthy: interpreter.interpretHealth({ ...target, spec: { size: 2 }, status: { ready: 1 } }),
  }),
);
interpreter.close();
