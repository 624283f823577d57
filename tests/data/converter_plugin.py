"""A plugin module whose function a config names as its arg_converter (test fixture)."""

from vllm.parser.granite import _granite_arg_converter


def arguments_of(raw_args: str, partial: bool) -> str:
    return _granite_arg_converter(raw_args, partial)
