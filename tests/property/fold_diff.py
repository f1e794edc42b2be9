#!/usr/bin/env python3
"""Differential test of code generation against the interpreter, without a GPU.

    fold_diff.py SEED COUNT [--kina PATH] [--work DIR]

Generates COUNT random kernels (seeded) whose output is one elementwise
expression over register tiles filled with constants, in every element type
(convert, add/sub/mul/div/max/min, select, neg, abs, clamp, pow and the math
builtins, nested). LLVM folds such a kernel to PTX stores of immediates, so
the immediate is what code generation computes; `kina run --interpret`
computes the interpreter's answer; the two must be bit-identical (NaN equal
to NaN). Kernels LLVM does not fold are skipped; a failing kernel is kept in
--work and printed as MISMATCH. Session 7 found the interpreter's -0.0 for
integer zeros this way (tests/lit/runtime/interpreter-int-zero.test).
Exit status: 0 no mismatch, 1 otherwise. Needs NumPy.
"""
import argparse, random, subprocess, sys, struct, re, os
import numpy as np
ap = argparse.ArgumentParser()
ap.add_argument("seed", type=int)
ap.add_argument("count", type=int)
ap.add_argument("--kina", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../build/compiler/driver/kina"))
ap.add_argument("--work", default="/tmp/kina-fold-diff")
args = ap.parse_args()
K = args.kina
seed = args.seed; N = args.count; random.seed(seed)
os.makedirs(args.work, exist_ok=True)
FL=['F16','BF16','F32','F64']; IN=['I8','U8','I32','I64']
def const(dt):
    if dt in FL:
        v=random.choice([0.0,1.0,-1.0,0.5,-2.5,3.75,100.0,-300.0,1e3,65504.0,70000.0,1e-3,-7.0,2.0,1e30,-1e30,0.1,127.5,-128.5,255.5,-0.5,2147483520.0,4294967296.0,3.0e38,1e-40,0.0078125,88.5,-88.5,709.0])
        return repr(v) if v>=0 else f'({v!r})'
    v=random.choice([0,1,-1,2,-2,3,7,-7,100,127,128,-128,200,255,256,300,-300,1000,65535,2147483647,-2147483648,123456789])
    if dt=='U8' and v<0: v=-v
    if dt in ('I8',) and not -128<=v<=127: v=random.choice([0,1,-1,100,-100,127,-128])
    if dt=='U8' and v>255: v=random.choice([0,1,200,255])
    if dt=='I32' and not -2**31<=v<2**31: v=7
    return str(v) if v>=0 else f'({v})'
def gen(dt, depth):
    if depth==0 or random.random()<0.25:
        return f't_{dt}'
    r=random.random()
    if r<0.12:
        src=random.choice(FL+IN)
        return f'(convert {dt} {gen(src,depth-1)})'
    if r<0.5:
        op=random.choice(['add','sub','mul','div','max','min'])
        b=gen(dt,depth-1) if random.random()<0.6 else const(dt)
        return f'({op} {gen(dt,depth-1)} {b})'
    if r<0.62:
        cmp=random.choice(['<','<=','=','!=','>','>='])
        return f'(select ({gen(dt,depth-1)} {cmp} {const(dt)}) {gen(dt,depth-1)} {gen(dt,depth-1)})'
    if r<0.72:
        return f'(neg {gen(dt,depth-1)})'
    if r<0.8:
        return f'(abs {gen(dt,depth-1)})' if dt!='U8' else f'(clamp {gen(dt,depth-1)} 3 200)'
    if dt in FL:
        fs=['sqrt','floor','ceil','exp','rsqrt'] + ([] if dt=='F64' else ['relu','tanh','sigmoid','exp2','log','erf','gelu','silu','log2'])
        f=random.choice(fs+['pow','clampf'] if dt!='F64' else fs+['clampf'])
        if f=='pow': return f'(pow {gen(dt,depth-1)} {random.choice(["2.0","0.5","3.0","(-1.0)","0.0"])})'
        if f=='clampf':
            a,b=sorted([float(const(dt).strip('()')),float(const(dt).strip('()'))])
            fa=repr(a) if a>=0 else f'({a!r})'; fb=repr(b) if b>=0 else f'({b!r})'
            return f'(clamp {gen(dt,depth-1)} {fa} {fb})'
        return f'({f} {gen(dt,depth-1)})'
    lo,hi=sorted([int(const(dt).strip('()')),int(const(dt).strip('()'))])
    return f'(clamp {gen(dt,depth-1)} {lo if lo>=0 else f"({lo})"} {hi if hi>=0 else f"({hi})"})'
bad=0; done=0
for i in range(N):
    odt=random.choice(['I32','F32'])
    dt=random.choice(FL+IN)
    e=gen(dt,random.randint(1,5))
    decl=''.join(f'      register t_{d} : Tile[{d}, [16, 8], on=cuda:register]\n      t_{d} <- fill {const(d)}\n' for d in FL+IN)
    src=f'''kernel cf
    [M]
    requires (M mod 16 = 0)
    requires capability(sm_80)
    (x : Tensor[F32, [M, 8], on=cuda:global])
    : (out : Tensor[{odt}, [M, 8], on=cuda:global]) {{
  block_grid [M/16] {{
    warp_grid [1] {{
{decl}      out[block_id 0 * 16 ..+ 16, 0 ..+ 8] <- convert {odt} {e}
    }}
  }}
}}
'''
    path=f'{args.work}/s{seed}_{i}.kina'; open(path,'w').write(src)
    r=subprocess.run([K,'check',path],capture_output=True,text=True)
    if r.returncode!=0:
        if 'error[K' not in r.stderr or r.returncode>2: print('CHECKBAD',path,r.stderr[:200]); bad+=1
        else: os.remove(path)
        continue
    b=subprocess.run([K,'build',path,'--emit=ptx','-o','-','--target','sm_90a'],capture_output=True,text=True)
    if b.returncode!=0: print('BUILDFAIL',path,b.stderr[:300]); bad+=1; continue
    sts=re.findall(r'st\.global\.v2\.b32\s+\[[^\]]*\],\s*\{([^}]*)\}',b.stdout)
    if not sts or len(sts)!=2:
        os.remove(path); continue  # not folded
    vals=set(v.strip() for s in sts for v in s.split(','))
    if len(vals)!=1 or vals.pop().startswith('%'):
        os.remove(path); continue
    imm=[v.strip() for v in sts[0].split(',')][0]
    if imm.startswith('0f'): got=struct.unpack('>f',bytes.fromhex(imm[2:]))[0]; gotbits=int(imm[2:],16)
    else: got=int(imm); gotbits=got & 0xffffffff
    sd=f'{args.work}/save{seed}'
    rr=subprocess.run([K,'run',path,'--dims','M=16','--interpret','--save',sd],capture_output=True,text=True)
    if rr.returncode!=0: print('RUNFAIL',path,rr.stderr[:200]); bad+=1; continue
    o=np.load(f'{sd}/cf/out.npy')
    want=o[0,0]
    wbits=int(np.array(want).view(np.uint32)) if odt=='F32' else int(want)&0xffffffff
    same = (wbits==gotbits) or (odt=='F32' and np.isnan(want) and np.isnan(got))
    if not (o==o[0,0]).all() and not np.isnan(want): print('NONUNIFORM',path)
    done+=1
    if not same:
        print('MISMATCH',path,'ptx',got,'interp',want,'expr',e); bad+=1
    else: os.remove(path)
print('seed',seed,'compared',done,'bad',bad)
sys.exit(1 if bad else 0)
