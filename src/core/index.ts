/**
 * Entry of the core bundle (dist/core.js), `require`d by the entry bundle on the first
 * command that needs it. It holds the API client (undici, zod) and the features, so none
 * of that loads at activation.
 */
import { ConnectionTester } from '../commands/connection';
import { EmulatorCommand } from '../commands/emulator';
import { KeyCommands } from '../commands/keyCommands';
import { Commands, type CommandId } from '../ids';
import { FilterStore } from '../filters/filterStore';
import { ErrorPresenter } from '../ui/errorPresenter';
import { UsageLedger } from '../usage/usageLedger';
import { Disposable } from '../util/disposable';
import { ClientProvider } from './clientProvider';
import type { Core, CoreServices } from './types';

class CoreImpl extends Disposable implements Core {
  private readonly presenter: ErrorPresenter;
  private readonly handlers: Partial<Record<CommandId, (...args: readonly unknown[]) => Promise<unknown>>>;
  /** Active search filters of this workspace (issue 4, BUDGET+FILTERS). */
  readonly filters: FilterStore;
  /** Calls spent this month on this machine (issue 4, BUDGET+FILTERS). */
  readonly usage: UsageLedger;

  constructor(private readonly services: CoreServices) {
    super();
    const { log, settings, keys } = services;
    this.presenter = new ErrorPresenter(log, () => settings.service.baseUrl);
    const clients = this.register(new ClientProvider(settings, keys, log));
    this.usage = this.register(new UsageLedger({ state: services.context.globalState, origin: () => settings.service.origin }));
    this.filters = this.register(new FilterStore({ state: services.context.workspaceState }));
    const keyCommands = new KeyCommands(keys, settings, log, this.presenter);
    const tester = new ConnectionTester(clients, keys, log, this.presenter);
    const emulator = new EmulatorCommand(keys, settings, log);
    this.handlers = {
      [Commands.setApiKey]: () => keyCommands.setApiKey(),
      [Commands.clearApiKey]: () => keyCommands.clearApiKey(),
      [Commands.testConnection]: () => tester.run(),
      [Commands.useEmulator]: () => emulator.run(),
    };
  }

  /** The command boundary: any error is logged and shown as one sentence with its buttons. */
  async run(command: CommandId, args: readonly unknown[]): Promise<unknown> {
    const handler = this.handlers[command];
    if (!handler) throw new Error(`No core handler for ${command}.`);
    try {
      return await handler(...args);
    } catch (err) {
      this.presenter.show(err, { context: command, retry: () => this.run(command, args) });
      return undefined;
    }
  }
}

export function createCore(services: CoreServices): Core {
  return new CoreImpl(services);
}
