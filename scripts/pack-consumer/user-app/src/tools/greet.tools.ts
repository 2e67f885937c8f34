import { Injectable } from '@nestjs/common';
import { Exclude } from 'class-transformer';
import { IsString, MaxLength } from 'class-validator';
import { McpArgs, McpTool } from 'nestjs-mcp';
import type { AppUser } from '../auth/app-user.js';
import { CurrentUser } from '../auth/current-user.decorator.js';

export class GreetDto {
  @IsString()
  @MaxLength(40)
  name!: string;
}

/** What `greet` answers; ClassSerializerInterceptor leaves out the excluded field. */
export class Greeting {
  @Exclude()
  readonly userId: string;

  constructor(
    readonly message: string,
    userId: string,
  ) {
    this.userId = userId;
  }
}

@Injectable()
export class GreetTools {
  @McpTool({ name: 'greet', description: 'Greets someone on behalf of the signed-in user' })
  greet(@McpArgs() { name }: GreetDto, @CurrentUser() user: AppUser): Greeting {
    return new Greeting(`Hello, ${name}! (from ${user.username})`, user.userId);
  }
}
