// Smart modules (docs/webhooks.md): webhooks modules, created and deleted through the API's verbs with
// the same target policy (HEARTH_WEBHOOKS_ALLOW_PRIVATE_TARGETS) and template checks.
import { type Command, all, intArg, str, stringArg } from './types.js';

const mod = () => import('../../src/domain/module/index.js');

export const modules: Record<string, Command> = {
  list: {
    usage: 'modules list <projectId>',
    summary: "list a project's smart modules (webhook keys masked)",
    maxPositionals: 1,
    columns: ['id', 'description', 'eventWebhook.url', 'eventWebhook.subscriptions', 'commandWebhook.url'],
    run: async (ctx, a) => {
      const projectId = intArg(a.positionals[0], '<projectId>');
      const caller = await ctx.adminOf(projectId);
      const { listModules } = await mod();
      return all((page) => listModules({ deps: ctx.deps, caller, input: { projectId, page } }));
    },
  },
  create: {
    usage: 'modules create <projectId> <moduleId> [--event-url <url>] [--subscribe <eventType|*>]... [--command-url <url>] [--description <text>]',
    summary:
      'create a webhooks module: an event webhook (subscribed to every event unless --subscribe is given, repeatable) and/or a command webhook; ' +
      'prints the generated webhook keys (shown once)',
    maxPositionals: 2,
    options: {
      'event-url': { type: 'string' },
      subscribe: { type: 'string', multiple: true },
      'command-url': { type: 'string' },
      description: { type: 'string' },
    },
    run: async (ctx, a) => {
      const projectId = intArg(a.positionals[0], '<projectId>');
      const id = stringArg(a.positionals[1], '<moduleId>');
      const caller = await ctx.adminOf(projectId);
      const eventUrl = str(a, 'event-url');
      const commandUrl = str(a, 'command-url');
      const subscriptions = a.values.subscribe as string[] | undefined;
      const body = {
        id,
        moduleType: 'webhooks',
        description: str(a, 'description'),
        eventWebhook: eventUrl === undefined ? undefined : { url: eventUrl, subscriptions },
        commandWebhook: commandUrl === undefined ? undefined : { url: commandUrl },
      };
      const { webhookChecksOf } = await import('../../src/domain/webhook/checks.js');
      return (await mod()).createModule({
        deps: { ...ctx.deps, checks: webhookChecksOf(ctx.deps) },
        caller,
        input: { projectId, body },
      });
    },
  },
  delete: {
    usage: 'modules delete <projectId> <moduleId>',
    summary: 'delete a module with its delivery log and whatever is still queued for it',
    maxPositionals: 2,
    run: async (ctx, a) => {
      const projectId = intArg(a.positionals[0], '<projectId>');
      const id = stringArg(a.positionals[1], '<moduleId>');
      await (await mod()).deleteModule({ deps: ctx.deps, caller: await ctx.adminOf(projectId), input: { projectId, moduleId: id } });
      return { deleted: id };
    },
  },
};
