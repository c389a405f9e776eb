/** Types of build.mjs, for the test that checks the kept WebAssembly against its source. */
export declare const SOURCE: string;
export declare const TARGET: string;
export declare function compileFilter(): Promise<Buffer>;
export declare function bytesModule(bytes: Buffer): string;
