// class-transformer ships this module without typings beside it; its types live under types/.
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
