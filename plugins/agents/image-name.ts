import { Type } from '@sinclair/typebox';

/**
 * An image name, as the agents' commands carry it (image create and restore, cache fetch and
 * delete): also its file name `<name>.img` in the repository and in a client's cache. Letters,
 * digits, '.', '_' and '-', not starting with a dot or dash, no '..'; so no '/', no NUL,
 * nothing a shell or a path could read twice.
 */
const imageNamePattern = '^(?!.*\\.\\.)[A-Za-z0-9_][A-Za-z0-9._-]{0,49}$';

export const ImageName = () => Type.String({ minLength: 1, maxLength: 50, pattern: imageNamePattern });

const imageNameRegExp = new RegExp(imageNamePattern);
export const isImageName = (name: string): boolean => imageNameRegExp.test(name);
