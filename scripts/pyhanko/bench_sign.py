"""pyHanko signing timer for bench/signing-bigdocs.ts (issue 30).

Reads commands on stdin, one per line: "<pdf path>". Signs the file in memory (PAdES B-B, new invisible
field, software RSA key) and prints one line: the elapsed milliseconds, or "error: ..." .
Arguments: <key.pem> <cert.pem>. Run with PYTHONPATH pointing at the pyHanko and certvalidator trees.
"""
import io
import sys
import time

from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign import fields, signers


def main() -> None:
    signer = signers.SimpleSigner.load(sys.argv[1], sys.argv[2])
    cache = {}
    for line in sys.stdin:
        path = line.strip()
        if not path:
            continue
        try:
            if path not in cache:
                with open(path, 'rb') as f:
                    cache[path] = f.read()
            data = cache[path]
            t0 = time.perf_counter()
            writer = IncrementalPdfFileWriter(io.BytesIO(data), strict=False)
            meta = signers.PdfSignatureMetadata(field_name='Signature1', subfilter=fields.SigSeedSubFilter.PADES)
            out = signers.sign_pdf(writer, meta, signer=signer, new_field_spec=fields.SigFieldSpec('Signature1'))
            out.getbuffer()
            print(f'{(time.perf_counter() - t0) * 1000:.3f}', flush=True)
        except Exception as e:  # report and keep serving
            print(f'error: {type(e).__name__}: {e}', flush=True)


if __name__ == '__main__':
    main()
