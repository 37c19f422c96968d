#!/usr/bin/env python3
"""Asks pyHanko (run from a fetched source tree, see docs/signing.md) what it says about each signature of
one PDF, without trust: integrity (digest and signature), coverage, the modification level of what follows
and whether DocMDP/FieldMDP allow it. Prints one JSON object; never decides anything for Mohar.

Usage: PYTHONPATH=<pyHanko tree>:<certvalidator tree> python3 scripts/pyhanko/judge.py FILE.pdf
"""
import json
import logging
import sys

from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature, validate_pdf_timestamp
from pyhanko_certvalidator import ValidationContext


logging.disable(logging.CRITICAL)  # pyHanko logs every untrusted chain; trust is not asked here


def judge(path):
    out = {'file': path, 'signatures': [], 'error': None}
    try:
        with open(path, 'rb') as handle:
            reader = PdfFileReader(handle, strict=False)
            context = ValidationContext(allow_fetching=False, revocation_mode='soft-fail')
            for embedded in reader.embedded_signatures:
                entry = {'field': embedded.field_name, 'kind': embedded.sig_object_type.to_python() if hasattr(embedded.sig_object_type, 'to_python') else str(embedded.sig_object_type)}
                try:
                    if entry['kind'] in ('/DocTimeStamp', 'DocTimeStamp'):
                        status = validate_pdf_timestamp(embedded, validation_context=context)
                    else:
                        status = validate_pdf_signature(embedded, signer_validation_context=context)
                    level = status.modification_level
                    entry.update(
                        intact=bool(status.intact),
                        valid=bool(status.valid),
                        coverage=status.coverage.name if status.coverage is not None else None,
                        modification_level=level.name if level is not None else None,
                        docmdp_ok=status.docmdp_ok,
                        diff_error=str(status.diff_result) if status.diff_result is not None and not hasattr(status.diff_result, 'modification_level') else None,
                    )
                except Exception as error:  # pyHanko refuses the signature outright
                    entry.update(error=f'{type(error).__name__}: {error}')
                out['signatures'].append(entry)
    except Exception as error:
        out['error'] = f'{type(error).__name__}: {error}'
    return out


if __name__ == '__main__':
    print(json.dumps([judge(p) for p in sys.argv[1:]] if len(sys.argv) > 2 else judge(sys.argv[1]), indent=1))
