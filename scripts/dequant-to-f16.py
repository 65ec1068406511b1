"""Writes an F16 copy of a GGUF model, the reference side of a quantization pair (scripts/quant-pair.sh):
every tensor dequantized by gguf-py and stored as F16 (1-D tensors, the norms, as F32), the
metadata copied with general.file_type set to F16.
Usage: dequant-to-f16.py IN.gguf OUT.gguf"""
import sys
import numpy as np
import gguf
from gguf.quants import dequantize

src, dst = sys.argv[1], sys.argv[2]
reader = gguf.GGUFReader(src)
arch = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
writer = gguf.GGUFWriter(dst, arch)
for field in reader.fields.values():
    if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith('GGUF.'):
        continue
    if field.name == gguf.Keys.General.FILE_TYPE:
        writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
        continue
    t = field.types[0]
    sub = field.types[-1] if t == gguf.GGUFValueType.ARRAY else None
    writer.add_key_value(field.name, field.contents(), t, sub_type=sub)
for tensor in reader.tensors:
    values = dequantize(tensor.data, tensor.tensor_type)
    values = values.astype(np.float32 if values.ndim == 1 else np.float16)
    writer.add_tensor(tensor.name, values)
writer.write_header_to_file()
writer.write_kv_data_to_file()
writer.write_tensors_to_file()
writer.close()
