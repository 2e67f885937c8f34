import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'isPublic';
/** A route anyone may call, without a token (the Nest docs' `@Public()`). */
export const Public = () => SetMetadata(IS_PUBLIC_KEY, true);
