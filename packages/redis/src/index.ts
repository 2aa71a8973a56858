// @breakwater/redis: Breakwater beyond one process (SPEC §9, §10).
export {};
