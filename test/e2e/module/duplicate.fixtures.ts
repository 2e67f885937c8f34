import { Injectable, Module } from '@nestjs/common';
import { McpTool } from '../../../src/index';

@Injectable()
export class InventoryTools {
  @McpTool({ name: 'lookup', description: 'Looks an item up' })
  findItem(): string {
    return 'item';
  }
}

@Injectable()
export class CustomerTools {
  @McpTool({ name: 'lookup', description: 'Looks a customer up' })
  findCustomer(): string {
    return 'customer';
  }
}

/** Two tools named `lookup`: startup must fail. */
@Module({ providers: [InventoryTools, CustomerTools] })
export class DuplicateToolsModule {}
