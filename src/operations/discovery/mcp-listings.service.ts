import { Inject, Injectable } from '@nestjs/common';
import type { Prompt, Resource, Tool } from '@modelcontextprotocol/server';
import { DISCOVERY_OPTIONS, type DiscoveryOptions } from './discovery.options';
import { McpListedResources, type ContributedResource } from './listed-resources';
import type { ListingPage } from './listing-page';
import { McpOperationRegistry } from './mcp-operation.registry';
import type {
  PromptEntry,
  ResourceEntry,
  ResourceTemplateListing,
  ToolEntry,
} from './operation-entry.interface';
import { PagedListing } from './paged-listing';

interface Listings {
  readonly generation: string;
  readonly tools: PagedListing<Tool, ToolEntry>;
  readonly prompts: PagedListing<Prompt, PromptEntry>;
  readonly resources: PagedListing<
    Resource,
    (ResourceEntry & { listing: Resource }) | ContributedResource
  >;
  readonly resourceTemplates: PagedListing<
    ResourceTemplateListing,
    ResourceEntry & { listing: ResourceTemplateListing }
  >;
}

/**
 * Operations in listing order: those found at bootstrap in registration order (the same on every
 * instance built from the same code), then those registered at run time by key, in code-unit
 * order — so a list cursor (the key of the last entry shown) continues at the same place on every
 * instance of a fleet and across registrations and removals; one naming a removed entry is
 * refused (`Invalid cursor`), never answered with another page.
 */
function inListingOrder<E extends { readonly name: string; readonly runtime?: boolean }>(
  operations: readonly E[],
): E[] {
  const runtime = operations.filter((operation) => operation.runtime);
  if (runtime.length === 0) return [...operations];
  runtime.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [...operations.filter((operation) => !operation.runtime), ...runtime];
}

/**
 * The four list methods' answers, in pages of `lists.pageSize`, built from the registry (and the
 * resources extensions contribute, after the resource operations) once, and rebuilt only when an
 * operation is registered, replaced or removed, or a contribution replaced after them.
 * @internal
 */
@Injectable()
export class McpListings {
  private built: Listings | undefined;

  constructor(
    private readonly registry: McpOperationRegistry,
    @Inject(DISCOVERY_OPTIONS) private readonly options: DiscoveryOptions,
    private readonly contributed: McpListedResources,
  ) {}

  tools(cursor: string | undefined): ListingPage<Tool> {
    return this.current().tools.page(cursor);
  }

  prompts(cursor: string | undefined): ListingPage<Prompt> {
    return this.current().prompts.page(cursor);
  }

  resources(cursor: string | undefined): ListingPage<Resource> {
    return this.current().resources.page(cursor);
  }

  resourceTemplates(cursor: string | undefined): ListingPage<ResourceTemplateListing> {
    return this.current().resourceTemplates.page(cursor);
  }

  /** The paged listings themselves, for answers filtered per caller. */
  current(): Listings {
    const generation = `${this.registry.generation}:${this.contributed.generation}`;
    if (this.built?.generation === generation) return this.built;
    const size = this.options.listPageSize;
    this.built = {
      generation,
      tools: new PagedListing('tools', inListingOrder(this.registry.getTools()), size),
      prompts: new PagedListing('prompts', inListingOrder(this.registry.getPrompts()), size),
      resources: new PagedListing(
        'resources',
        [
          ...inListingOrder(
            this.registry.getFixedResources() as (ResourceEntry & { listing: Resource })[],
          ),
          ...this.contributed.all(),
        ],
        size,
      ),
      resourceTemplates: new PagedListing(
        'resourceTemplates',
        inListingOrder(
          this.registry.getTemplateResources() as (ResourceEntry & {
            listing: ResourceTemplateListing;
          })[],
        ),
        size,
      ),
    };
    return this.built;
  }
}
