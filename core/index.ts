/** The public API for plugin authors: `import { definePlugin, ... } from 'ogserve'`. */
export { definePlugin, type PluginContext, type PluginDefinition, type SeedContext } from './plugin';
export type { CommandLineParts, ImportParts } from './plugin';
export type { StaticOptions } from './http/static';
export { HttpError, ErrorCode, badRequest, StartupError } from './errors';
export { Type, type Static } from '@sinclair/typebox';
export type { Handler, RequestContext, Route, RouteRegistrar, RouteSpec, BodyPolicy } from './http/routes';
export { queryOf } from './http/routes';
export { positive, timeOf } from './http/query-values';
export { Reply } from './http/reply';
export type { Answered, Arriving, HookOptions, PluginHooks, RequestIdentifier } from './http/hooks';
export type { ClientsAt } from './http/route-clients';
export type { Access, AccessScope, Credential, CredentialPart, KeyLookup, Permission, PermissionDeclaration, Role } from './access';
export { isRole, roleNames, scopeOf } from './access';
export { execute, insertInChunks, Database } from './database';
export { GroupCommit, type GroupWrite } from './group-commit';
export { EntitySchema, type EntityManager } from '@mikro-orm/core';
export type { ClusterBackend, ClusterEvents, ClusterMessage, PluginCluster } from './cluster';
export type { Migration, MigrationContext } from './migrations';
export type { Logger } from './log';
export { isIpv4, isHostIpv4, isMac, isNetmask, normalizeMac, ipv4ToInt, intToIpv4, isDecimalInt, MAX_INT } from './formats';
export { App, type AppOptions } from './app';
export type { CoreSettings } from './config-schema';
export type { SiteConfig } from './site-config';
export {
  CoreConfig,
  MetricsRegistry,
  PluginClusterView,
  PluginConfig,
  PluginEventBus,
  PluginLog,
  injectableWith,
  type Injectable,
} from './injection';
export { inject, injectable, type InjectionToken } from 'tsyringe';
export { SystemClock, type Clock } from './clock';
export { electedEvery, type ElectedWork } from './elected-every';
export { IntLike, Number16, Port, Ipv4, HostIpv4, Mac, Netmask, IpList, Name, Text, toInt } from './schema-types';
export { PreparedJson, stringifyAscii } from './http/json';
export { compile, type Checker, type Violation } from './validation';
export { hostAddress, type ChosenAddress } from './host-address';
export { release } from './version';
export type { ListenSpec, Listening } from './listen';
export type {
  EventMap,
  EventName,
  HookMap,
  HookName,
  InternalEventMap,
  InternalEventName,
  ListenerFailure,
  PluginEvents,
} from './events';
export { Counter, Gauge, Histogram, type Registry } from './metrics';
